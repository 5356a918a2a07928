/**
 * Steering proven with the real Claude Code CLI: the daemon receives its hooks (HTTP hooks with
 * the hook token by reference; SessionStart through the command shim, the only kind Claude Code
 * runs there), an operator instruction sent over the AEP socket while the first model response is
 * held is delivered in the next eligible hook reply, and the CLI's next model request carries it.
 * A session that ends with the instruction still queued drops it on SessionEnd.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isAnthropicAgentRequest, startAnthropicStub } from '../support/model-stubs/anthropic-stub';
import { requestContains } from '../support/model-stubs/stub-server';
import { describeRun } from '../support/run-vendor';
import {
  auditRowsFor,
  isInstructionEvent,
  nextAgentRequest,
  startHeldSession,
} from '../support/steering-rig';
import { useSteeringRig } from '../support/use-steering-rig';
import { HOOK_MOMENTS, supportsHttpHook, vendorHooks } from '../support/vendor-hook-config';

const VENDOR = 'claude-code';

describe('Claude Code: steering end to end with the real CLI', () => {
  const h = useSteeringRig(VENDOR);

  it('delivers an instruction sent mid-session into the next model request, cause-linked and audited', async (ctx) => {
    const r = h.rig(ctx);
    const stub = h.track(await startAnthropicStub());
    const hooks = vendorHooks(
      VENDOR,
      (moment) => (supportsHttpHook(VENDOR, moment) ? r.httpHook(VENDOR) : r.shimHook(VENDOR)),
      HOOK_MOMENTS[VENDOR],
    );
    const live = await startHeldSession(r, VENDOR, stub, isAnthropicAgentRequest, hooks);
    const text = `Operator note ${randomUUID()}: keep answers short.`;
    const { id, outcome } = await r.socket.instruct(VENDOR, live.session, text);
    expect(outcome.kind, JSON.stringify(outcome)).toBe('accepted');
    expect(live.held.raw).not.toContain(text);

    live.hold.release();
    const carrying = await stub.waitForRequest(
      (q) => isAnthropicAgentRequest(q) && requestContains(q, text),
      { fromIndex: live.held.index + 1 },
    );
    expect(nextAgentRequest(stub, isAnthropicAgentRequest, live.held)?.index).toBe(carrying.index);

    const delivered = await r.socket.waitForEvent(
      isInstructionEvent(VENDOR, 'delivered', id),
      'instruction.delivered',
    );
    expect(delivered.session).toBe(live.session);
    // The first context-carrying moment after the held response: the shell tool call's PreToolUse.
    expect(delivered.data).toMatchObject({ queued_ms: expect.any(Number), moment: 'PreToolUse' });
    const result = await live.finish();
    expect(result.code, describeRun(result)).toBe(0);

    const actions = (await auditRowsFor(r.companion, live.session, id)).map((row) => row.action);
    expect(actions).toEqual(
      expect.arrayContaining(['instruct.command', 'instruct.accepted', 'instruct.delivered']),
    );
  });

  it('drops an instruction still queued when the session ends (SessionEnd)', async (ctx) => {
    const r = h.rig(ctx);
    // One text answer and no context-carrying moment registered after the start: nothing can deliver.
    const stub = h.track(await startAnthropicStub([{ text: 'All done.' }]));
    const hooks = vendorHooks(
      VENDOR,
      (moment) => (moment === 'SessionStart' ? r.shimHook(VENDOR) : r.httpHook(VENDOR)),
      ['SessionStart', 'SessionEnd'],
    );
    const live = await startHeldSession(r, VENDOR, stub, isAnthropicAgentRequest, hooks);
    const text = `Operator note ${randomUUID()}: this one arrives too late.`;
    const from = r.socket.events.length;
    const sent = r.companion.runCli(['instruct', live.session, text, '--wait'], {
      timeoutMs: 120_000,
    });
    const accepted = await r.socket.waitForEvent(
      (e) => e.type === 'control.accepted' && e.session === live.session,
      'control.accepted',
      { fromIndex: from },
    );
    const commandId = accepted.cause as string;

    const result = await live.finish();
    expect(result.code, describeRun(result)).toBe(0);
    const dropped = await r.socket.waitForEvent(
      isInstructionEvent(VENDOR, 'dropped', commandId),
      'instruction.dropped',
    );
    expect(dropped.data).toMatchObject({ reason: 'session-ended' });
    const cli = await sent;
    expect(cli.code, `${cli.stdout}\n${cli.stderr}`).toBe(5);
    expect(stub.requests.some((q) => requestContains(q, text))).toBe(false);
    const actions = (await auditRowsFor(r.companion, live.session, commandId)).map(
      (row) => row.action,
    );
    expect(actions).toEqual(expect.arrayContaining(['instruct.accepted', 'instruct.dropped']));
  });
});
