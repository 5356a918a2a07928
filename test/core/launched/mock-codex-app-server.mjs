#!/usr/bin/env node
// A small `codex app-server` for the host tests: the v2 wire of codex 0.171.0 (no "jsonrpc" member,
// shapes as `codex app-server generate-ts` prints them). Every turn runs one tool item that needs
// approval: item/started, then the server request `item/commandExecution/requestApproval` (or
// `item/fileChange/requestApproval` with --approval=fileChange), and the turn goes on as the answer
// says: accept/acceptForSession → the item completes and the turn completes; decline → the item is
// declined and the turn completes; cancel → the item is declined and the turn is interrupted.
// `turn/interrupt` interrupts the open turn. Usage: node mock-codex-app-server.mjs [--record=FILE]
// [--approval=commandExecution|fileChange]; --record appends every line the client wrote.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const record = args.record ?? null;
const approval = args.approval ?? 'commandExecution';
const thread = `thr-${process.pid}`;
let turns = 0;
let open = null; // { id, item, request }
let serverIds = 0;

const write = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
const notify = (method, params) => write({ method, params });

function completeTurn(status) {
  if (open === null) return;
  const { id } = open;
  open = null;
  notify('turn/completed', { threadId: thread, turn: { id, items: [], status, error: null } });
}

function startTurn(requestId) {
  turns += 1;
  const id = `turn-${turns}`;
  const item = approval === 'fileChange'
    ? { type: 'fileChange', id: `call_${turns}`, changes: [{ path: 'notes.txt', kind: { type: 'add' }, diff: '+hello\n' }], status: 'inProgress' }
    : { type: 'commandExecution', id: `call_${turns}`, command: 'rm -rf build', cwd: process.cwd(), status: 'inProgress', commandActions: [] };
  serverIds += 1;
  open = { id, item, request: serverIds };
  write({ id: requestId, result: { turn: { id, items: [], status: 'inProgress', error: null } } });
  notify('turn/started', { threadId: thread, turn: { id, items: [], status: 'inProgress', error: null } });
  notify('item/started', { threadId: thread, turnId: id, item });
  const params = approval === 'fileChange'
    ? { threadId: thread, turnId: id, itemId: item.id, startedAtMs: Date.now(), reason: 'write notes.txt', grantRoot: null }
    : { kind: 'command', threadId: thread, turnId: id, itemId: item.id, startedAtMs: Date.now(), approvalId: null, environmentId: null, reason: 'clean the build', command: item.command, cwd: item.cwd, commandActions: [] };
  write({ id: open.request, method: `item/${approval}/requestApproval`, params });
}

function answered(decision) {
  if (open === null) return;
  const { item, id } = open;
  const allowed = decision === 'accept' || decision === 'acceptForSession';
  notify('item/completed', { threadId: thread, turnId: id, item: { ...item, status: allowed ? 'completed' : 'declined', ...(item.type === 'commandExecution' ? { exitCode: allowed ? 0 : null, aggregatedOutput: allowed ? 'removed\n' : null } : {}) } });
  if (decision === 'cancel') return completeTurn('interrupted');
  notify('thread/tokenUsage/updated', { threadId: thread, turnId: id, tokenUsage: { last: { inputTokens: 7, outputTokens: 2, totalTokens: 9 } } });
  completeTurn('completed');
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (record) appendFileSync(record, `${line}\n`);
  const m = JSON.parse(line);
  if (m.method === undefined) {
    if (open !== null && m.id === open.request) answered(m.result?.decision);
    return;
  }
  if (m.id === undefined) return; // notifications (initialized)
  if (m.method === 'initialize') return write({ id: m.id, result: { userAgent: 'mock-codex-app-server/0.171.0', platformFamily: 'unix', platformOs: 'linux' } });
  if (m.method === 'thread/start' || m.method === 'thread/resume') return write({ id: m.id, result: { thread: { id: thread, turns: [] } } });
  if (m.method === 'turn/start') return startTurn(m.id);
  if (m.method === 'turn/interrupt') {
    write({ id: m.id, result: {} });
    return completeTurn('interrupted');
  }
  write({ id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
});
process.stderr.write('mock codex app-server started\n');
