// Mid-turn steering behaviours of the mock ACP agent (test/support/mock-acp-agent.mjs --steer=KIND),
// modelled on the recorded wire (test/fixtures/acp-wire): a turn is one tool call that runs for
// --turn-delay ms, then one "model request" with the tool result, then the answer.
//   fold     promptQueueing; a prompt sent while the tool runs is folded at the tool boundary: the
//            running prompt settles early `end_turn` with all-zero usage (the Claude bridge's exact
//            shape), the steer's text is in the model request right after the tool result, and the
//            steer's prompt carries the answer and the real usage. A prompt sent after the tool
//            boundary is deferred (no boundary left to fold at).
//   defer    promptQueueing; a concurrent prompt runs as the next turn, after the running one answered.
//   reject   promptQueueing; a concurrent prompt is refused with -32602.
//   preempt  advertises nothing; a concurrent prompt aborts the running one (-32603 "Request was
//            aborted.", as Qwen Code does) and the model log records the concurrency.
// --background (with any kind): each turn also starts a background tool call `bg-ID` that outlives
// the turn: it completes after the hand-off (during the deferred turn, or after every prompt
// settled), and then, with no prompt in flight, the agent reports it in one text chunk and a usage
// update (the model cycle background work produces).
//   native   advertises `_meta.steering.supported`; `_session/steering` is injected into the running
//            turn (its text in the model request after the tool result) or answered promptRequired.
import { appendFileSync } from 'node:fs';

const ZERO = {
  stopReason: 'end_turn',
  usage: {
    inputTokens: 0,
    outputTokens: 0,
    cachedReadTokens: 0,
    cachedWriteTokens: 0,
    totalTokens: 0,
  },
  _meta: {
    quota: {
      token_count: {
        totalTokens: 0,
        inputTokens: 0,
        cachedInputTokens: 0,
        cachedWriteTokens: 0,
        outputTokens: 0,
        reasoningOutputTokens: 0,
      },
      model_usage: [],
    },
  },
};
const REAL = {
  stopReason: 'end_turn',
  usage: {
    inputTokens: 2,
    outputTokens: 4,
    cachedReadTokens: 0,
    cachedWriteTokens: 0,
    totalTokens: 6,
  },
};

const textOf = (m) => (m.params?.prompt ?? []).map((p) => p.text ?? '').join('');

export function createSteer({ kind, warnChunk, background, modelLog, turnDelay, send, update, sleep }) {
  const model = (entry) => {
    if (modelLog) appendFileSync(modelLog, `${JSON.stringify(entry)}\n`);
  };
  const queueing = kind === 'fold' || kind === 'defer' || kind === 'reject';

  /** Runs one prompt as a turn; `handle` collects what arrives while it runs. */
  function start(m, done) {
    let cancel;
    const cancelled = new Promise((resolve) => (cancel = resolve));
    const handle = {
      id: m.id,
      toolDone: false,
      over: false,
      steers: [],
      deferred: [],
      injected: [],
      cancel: () => {
        if (handle.over) return;
        handle.over = true;
        cancel();
        send({ id: m.id, result: { stopReason: 'cancelled' } });
        for (const s of [...handle.steers, ...handle.deferred])
          send({ id: s.id, result: { stopReason: 'cancelled' } });
        done();
      },
      abort: () => {
        handle.over = true;
        cancel();
      },
    };
    void (async () => {
      const call = `call-${m.id}`;
      const bg = `bg-${m.id}`;
      let bgOpen = background === true;
      const finishBackground = () => {
        if (!bgOpen) return;
        bgOpen = false;
        update({ sessionUpdate: 'tool_call_update', toolCallId: bg, status: 'completed', rawOutput: 'background done' });
      };
      model({ request: 'prompt', prompt: textOf(m) });
      if (bgOpen)
        update({
          sessionUpdate: 'tool_call',
          toolCallId: bg,
          title: 'background job',
          kind: 'execute',
          status: 'in_progress',
          rawInput: { command: 'sleep 1 && echo background done', run_in_background: true },
        });
      update({
        sessionUpdate: 'tool_call',
        toolCallId: call,
        title: 'echo mock',
        kind: 'execute',
        status: 'pending',
        rawInput: { command: 'echo mock' },
      });
      await Promise.race([sleep(turnDelay), cancelled]);
      if (handle.over) return;
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId: call,
        status: 'completed',
        rawOutput: 'mock',
      });
      handle.toolDone = true;
      const riders = [...handle.steers.map((s) => s.text), ...handle.injected];
      model({ request: 'after-tool-result', afterToolResult: true, steers: riders });
      if (kind === 'fold' && handle.steers.length > 0) {
        if (warnChunk)
          update({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: '**Warning:** mock notice before the fold' },
          });
        send({ id: m.id, result: ZERO });
        handle.steers.forEach((s, i) => {
          update({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: `folded reply (${s.text.length} chars)` },
          });
          update({ sessionUpdate: 'usage_update', used: 3, size: 1000 });
          send({ id: s.id, result: i === handle.steers.length - 1 ? REAL : ZERO });
        });
      } else {
        update({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `reply (${riders.length} steers)` },
        });
        update({ sessionUpdate: 'usage_update', used: 3, size: 1000 });
        send({ id: m.id, result: REAL });
      }
      for (const next of handle.deferred) {
        if (handle.over) return;
        model({ request: 'prompt', prompt: next.text, deferred: true });
        update({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `deferred reply (${next.text.length} chars)` },
        });
        // The background call of the predecessor completes while the deferred turn runs.
        await sleep(50);
        finishBackground();
        update({ sessionUpdate: 'usage_update', used: 2, size: 1000 });
        send({ id: next.id, result: REAL });
      }
      handle.over = true;
      done();
      if (background === true) {
        // Completes with no prompt in flight, and the agent reports it in a model cycle of its own.
        await sleep(100);
        finishBackground();
        update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'background job finished' } });
        update({ sessionUpdate: 'usage_update', used: 5, size: 1000 });
      }
    })();
    return handle;
  }

  /** A prompt that arrived while `running` runs; true when the caller must run it now (preempted). */
  function concurrent(m, running) {
    const text = textOf(m);
    model({ request: 'concurrent-prompt', prompt: text, whileRunning: running.id });
    if (kind === 'reject') {
      send({
        id: m.id,
        error: { code: -32602, message: 'Invalid params: a prompt is already running' },
      });
      return false;
    }
    if (kind === 'preempt' || kind === 'native') {
      running.abort();
      send({
        id: running.id,
        error: {
          code: -32603,
          message: 'Internal error',
          data: { details: 'Request was aborted.' },
        },
      });
      return true;
    }
    if (kind === 'fold' && !running.toolDone) running.steers.push({ id: m.id, text });
    else running.deferred.push({ id: m.id, text });
    return false;
  }

  function native(m, running) {
    if (running && !running.toolDone && !running.over) {
      running.injected.push(textOf(m));
      return send({ id: m.id, result: { outcome: 'injected' } });
    }
    return send({ id: m.id, result: { outcome: 'promptRequired', reason: 'noRunningTurn' } });
  }

  return {
    kind,
    capabilityMeta: queueing ? { claudeCode: { promptQueueing: true } } : {},
    topMeta: kind === 'native' ? { steering: { supported: true } } : {},
    start,
    concurrent,
    native,
  };
}
