/**
 * Steering proven with the real Qwen Code CLI: native HTTP hooks to the daemon (hook token by
 * reference through `allowedEnvVars`), an operator instruction sent over the AEP socket while the
 * first model response is held is delivered in the next eligible hook reply, and the CLI's next
 * chat completions request carries it. The drop case drives Qwen Code as an ACP agent, the
 * headless mode that fires SessionEnd (`qwen -p` never does), and ends the session with the
 * instruction still queued.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AcpClient } from '../support/acp-client';
import { isChatAgentRequest, startChatStub } from '../support/model-stubs/openai-chat-stub';
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

const VENDOR = 'qwen-code';

describe('Qwen Code: steering end to end with the real CLI', () => {
  const h = useSteeringRig(VENDOR);

  it('delivers an instruction sent mid-session into the next model request, cause-linked and audited', async (ctx) => {
    const r = h.rig(ctx);
    const stub = h.track(await startChatStub());
    const hooks = vendorHooks(VENDOR, () => r.httpHook(VENDOR), HOOK_MOMENTS[VENDOR]);
    const live = await startHeldSession(r, VENDOR, stub, isChatAgentRequest, hooks);
    const text = `Operator note ${randomUUID()}: keep answers short.`;
    const { id, outcome } = await r.socket.instruct(VENDOR, live.session, text);
    expect(outcome.kind, JSON.stringify(outcome)).toBe('accepted');
    expect(live.held.raw).not.toContain(text);

    live.hold.release();
    const carrying = await stub.waitForRequest(
      (q) => isChatAgentRequest(q) && requestContains(q, text),
      { fromIndex: live.held.index + 1 },
    );
    expect(nextAgentRequest(stub, isChatAgentRequest, live.held)?.index).toBe(carrying.index);

    const delivered = await r.socket.waitForEvent(
      isInstructionEvent(VENDOR, 'delivered', id),
      'instruction.delivered',
    );
    expect(delivered.session).toBe(live.session);
    // The first context-carrying moment after the held response: the shell tool call's
    // PostToolUse, whose context Qwen appends to the tool result in the next request.
    expect(delivered.data).toMatchObject({
      queued_ms: expect.any(Number),
      moment: 'PostToolUse',
    });
    const result = await live.finish();
    expect(result.code, describeRun(result)).toBe(0);

    const actions = (await auditRowsFor(r.companion, live.session, id)).map((row) => row.action);
    expect(actions).toEqual(
      expect.arrayContaining(['instruct.command', 'instruct.accepted', 'instruct.delivered']),
    );
  });

  it('drops an instruction still queued when the session ends (SessionEnd, ACP mode)', async (ctx) => {
    const r = h.rig(ctx);
    // One text answer and no context-carrying moment registered after the start: nothing can deliver.
    const stub = h.track(await startChatStub([{ text: 'All done.' }]));
    const hooks = vendorHooks(VENDOR, () => r.httpHook(VENDOR), ['SessionStart', 'SessionEnd']);
    let acp: AcpClient | undefined;
    let turn: Promise<string> | undefined;
    const live = await startHeldSession(r, VENDOR, stub, isChatAgentRequest, hooks, {
      qwenAcp: true,
      afterStart: (running, cwd) => {
        const client = new AcpClient(running.child);
        acp = client;
        turn = client.openSession(cwd).then((sessionId) => client.prompt(sessionId, 'Say hi.'));
        // An ACP agent never ends by itself: stop it at once when the client side fails.
        turn.catch(() => running.kill());
      },
    });
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

    live.hold.release();
    expect(await turn).toBe('end_turn');
    acp?.end();
    const result = await live.finish();
    expect(result.timedOut, describeRun(result)).toBe(false);
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
