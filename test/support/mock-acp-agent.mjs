#!/usr/bin/env node
// A small ACP agent (JSON-RPC 2.0, one message per line on stdio) for the host tests.
// Usage: node mock-acp-agent.mjs [--mode=MODE] [--init-delay=MS] [--turn-delay=MS] [--record=FILE] [--no-load] [--crash-on-steer] [--background]
// Modes (add one by adding a case to MODES below):
//   normal      a turn = tool_call, tool completed, a text chunk, usage, end_turn with usage
//   crash       exits with code 3 in the middle of the turn (after the tool call); --exit-code=N
//               exits with N instead (0: an agent that quits cleanly with its turn still running)
//   hang        never answers session/prompt (and ignores session/cancel)
//   garbage     writes non-JSON and non-JSON-RPC lines between the updates
//   permission  asks session/request_permission before the tool runs; reject → tool failed
//   slow-init   answers initialize after --init-delay (default 400 ms)
//   hang-init   never answers initialize
// Mid-turn steering (--steer=KIND, what a second session/prompt during a turn does; see
// test/support/mock-steer.mjs): fold (advertises promptQueueing; at the tool boundary the running
// prompt settles early `end_turn` with all-zero usage, exactly as the Claude bridge does, and the
// steer's prompt carries the rest of the turn and the real usage), defer (advertises promptQueueing;
// runs it as the next turn), reject (advertises promptQueueing; answers it -32602), preempt
// (advertises nothing; aborts the running prompt -32603 like Qwen Code), native (advertises
// `_meta.steering.supported` and answers `_session/steering`). --warn-chunk sends a warning text
// chunk before the early settlement; --model-log=FILE appends what the "model" was sent.
// Every turn waits --turn-delay ms (default 0) before settling; session/cancel settles a running
// turn as `cancelled`. stdin EOF exits 0 (unless --ignore-eof: a stubborn agent that outlives its
// client). --record appends every received line to FILE. --tool-delay=MS keeps the turn's tool call
// open (requested, not settled) that long.
import { appendFileSync } from 'node:fs';
import { createSteer } from './mock-steer.mjs';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? true];
  }),
);
const mode = String(args.mode ?? 'normal');
const initDelay = Number(args['init-delay'] ?? (mode === 'slow-init' ? 400 : 0));
const turnDelay = Number(args['turn-delay'] ?? 0);
const toolDelay = Number(args['tool-delay'] ?? 0);
const record = args.record ? String(args.record) : null;
const sessionId = `mock-${process.pid}-${Date.now().toString(36)}`;
let nextId = 1000;
const waiting = new Map();
let running = null;

const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
const update = (u) => send({ method: 'session/update', params: { sessionId, update: u } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const request = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    send({ id, method, params });
  });

const steer = createSteer({ kind: args.steer ? String(args.steer) : null, warnChunk: args['warn-chunk'] === true, background: args.background === true, modelLog: args['model-log'] ? String(args['model-log']) : null, turnDelay, send, update, sleep });

const MODES = {
  async turn(id, text) {
    const call = `call-${id}`;
    update({ sessionUpdate: 'tool_call', toolCallId: call, title: 'echo mock', kind: 'execute', status: 'pending', rawInput: { command: 'echo mock' } });
    if (mode === 'garbage') {
      process.stdout.write('this line is not JSON\n');
      process.stdout.write('{"hello":"not json-rpc"}\n');
      process.stdout.write('[1,2,3]\n');
    }
    if (mode === 'crash') {
      await sleep(20);
      process.exit(args['exit-code'] === undefined ? 3 : Number(args['exit-code']));
    }
    // --tool-delay=MS: the tool call stays open (requested, not settled) that long.
    if (toolDelay > 0) await sleep(toolDelay);
    let failed = false;
    if (mode === 'permission') {
      const answer = await request('session/request_permission', {
        sessionId,
        toolCall: { toolCallId: call, title: 'echo mock', kind: 'execute' },
        options: [
          { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
        ],
      });
      if (answer?.outcome?.outcome === 'cancelled') return { stopReason: 'cancelled' };
      failed = answer?.outcome?.optionId !== 'allow_once';
    }
    update({ sessionUpdate: 'tool_call_update', toolCallId: call, status: failed ? 'failed' : 'completed', rawOutput: failed ? undefined : 'mock' });
    update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `mock reply to ${text.length} chars` } });
    update({ sessionUpdate: 'usage_update', used: 3, size: 1000 });
    if (turnDelay > 0) await sleep(turnDelay);
    return { stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 5, totalTokens: 8 } };
  },
};

async function handle(m) {
  if (m.id !== undefined && m.method === undefined) {
    const resolve = waiting.get(m.id);
    waiting.delete(m.id);
    resolve?.(m.result);
    return;
  }
  switch (m.method) {
    case 'initialize':
      if (mode === 'hang-init') return;
      if (initDelay > 0) await sleep(initDelay);
      return send({
        id: m.id,
        result: {
          protocolVersion: 1,
          agentCapabilities: { loadSession: args['no-load'] !== true, promptCapabilities: { image: false }, _meta: { mock: { mode }, ...steer.capabilityMeta } },
          agentInfo: { name: 'mock-acp-agent', title: 'Mock ACP agent', version: '1.0.0' },
          authMethods: [],
          _meta: { mockMeta: true, ...steer.topMeta },
        },
      });
    case 'session/new':
    case 'session/load':
      return send({ id: m.id, result: m.method === 'session/new' ? { sessionId } : {} });
    case 'session/prompt': {
      if (mode === 'hang') return;
      // --crash-on-steer: the connection dies when a prompt arrives while one runs.
      if (args['crash-on-steer'] === true && running) process.exit(3);
      // A prompt while one runs: the steer kind decides (true: it preempted, run this one now).
      if (steer.kind && running && !steer.concurrent(m, running)) return;
      if (steer.kind) {
        running = steer.start(m, () => (running = null));
        return;
      }
      const text = m.params?.prompt?.[0]?.text ?? '';
      let settle;
      const cancelled = new Promise((r) => (settle = r));
      running = { id: m.id, cancel: () => settle({ stopReason: 'cancelled' }) };
      const result = await Promise.race([MODES.turn(m.id, text), cancelled]);
      running = null;
      return send({ id: m.id, result });
    }
    case 'session/cancel':
      if (mode !== 'hang') running?.cancel();
      return;
    case '_session/steering':
      if (steer.kind === 'native') return steer.native(m, running);
      return send({ id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
    default:
      if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
  }
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\n')) !== -1) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (record) appendFileSync(record, `${(performance.timeOrigin + performance.now()).toFixed(3)} ${line}\n`);
    if (line.trim() === '') continue;
    try {
      void handle(JSON.parse(line));
    } catch {
      process.stderr.write(`mock agent: bad line ${line}\n`);
    }
  }
});
process.stdin.on('end', () => {
  if (args['ignore-eof'] !== true) process.exit(0);
});
process.stdout.on('error', () => undefined);
if (args['ignore-eof'] === true) setInterval(() => undefined, 60_000);
process.stderr.write(`mock acp agent started mode=${mode}\n`);
