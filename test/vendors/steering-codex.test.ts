/**
 * Steering proven with the real Codex CLI: every hook goes through the `aep-companion hook codex`
 * command shim (Codex runs command hooks only), an operator instruction sent over the AEP socket
 * while the first model response is held is delivered in the next eligible hook reply, and the
 * CLI's next Responses API request carries it. Codex has no session-end moment, so an instruction
 * left queued stays queued for the daemon's lifetime (the idle expiry never drops it).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isResponsesAgentRequest,
  startResponsesStub,
} from '../support/model-stubs/openai-responses-stub';
import { requestContains } from '../support/model-stubs/stub-server';
import { describeRun } from '../support/run-vendor';
import {
  auditRowsFor,
  isInstructionEvent,
  nextAgentRequest,
  startHeldSession,
} from '../support/steering-rig';
import { useSteeringRig } from '../support/use-steering-rig';
import { HOOK_MOMENTS, vendorHooks } from '../support/vendor-hook-config';

const VENDOR = 'codex';

describe('Codex: steering end to end with the real CLI', () => {
  const h = useSteeringRig(VENDOR);

  it('delivers an instruction sent mid-session into the next model request, cause-linked and audited', async (ctx) => {
    const r = h.rig(ctx);
    const stub = h.track(await startResponsesStub());
    const hooks = vendorHooks(VENDOR, () => r.shimHook(VENDOR), HOOK_MOMENTS[VENDOR]);
    const live = await startHeldSession(r, VENDOR, stub, isResponsesAgentRequest, hooks);
    const text = `Operator note ${randomUUID()}: keep answers short.`;
    const { id, outcome } = await r.socket.instruct(VENDOR, live.session, text);
    expect(outcome.kind, JSON.stringify(outcome)).toBe('accepted');
    expect(live.held.raw).not.toContain(text);

    live.hold.release();
    const carrying = await stub.waitForRequest(
      (q) => isResponsesAgentRequest(q) && requestContains(q, text),
      { fromIndex: live.held.index + 1 },
    );
    expect(nextAgentRequest(stub, isResponsesAgentRequest, live.held)?.index).toBe(carrying.index);

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
});

describe('Codex: a queued instruction with no session end to ride', () => {
  // Read at start, so the rig restarts the daemon with it: the idle sweep then runs every ~1.25 s.
  const h = useSteeringRig(VENDOR, { settings: { 'steering.idleExpiryMs': 5_000 } });

  it('keeps an instruction left queued after the session goes idle (no session-end moment)', async (ctx) => {
    const r = h.rig(ctx);
    // One text answer and only SessionStart registered: no hook can deliver after the instruction.
    const stub = h.track(await startResponsesStub([{ text: 'All done.' }]));
    const hooks = vendorHooks(VENDOR, () => r.shimHook(VENDOR), ['SessionStart']);
    const live = await startHeldSession(r, VENDOR, stub, isResponsesAgentRequest, hooks);
    const text = `Operator note ${randomUUID()}: this one waits.`;
    const { id, outcome } = await r.socket.instruct(VENDOR, live.session, text);
    expect(outcome.kind, JSON.stringify(outcome)).toBe('accepted');

    const result = await live.finish();
    expect(result.code, describeRun(result)).toBe(0);
    // The sweep marks the silent session idle and, in the same pass, runs the queue's idle sweep.
    type Row = { session: string; state: string };
    for (;;) {
      const rows = await r.companion.api<Row[]>('GET', '/api/sessions');
      if (rows.find((s) => s.session === live.session)?.state === 'idle') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const pending = await r.companion.api<{ items: { commandId: string; kind: string }[] }>(
      'GET',
      `/api/pending?session=${encodeURIComponent(live.session)}`,
    );
    expect(pending.items.map((i) => [i.commandId, i.kind])).toEqual([[id, 'instruction']]);
    expect(r.socket.events.some(isInstructionEvent(VENDOR, 'dropped', id))).toBe(false);
    expect(stub.requests.some((q) => requestContains(q, text))).toBe(false);
  });
});
