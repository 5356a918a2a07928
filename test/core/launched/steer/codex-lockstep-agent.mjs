#!/usr/bin/env node
// Replays the agent side of a recorded Codex app-server wire file (test/fixtures/acp-wire) in
// lockstep with the host, `turn/steer` and `turn/interrupt` included (the general replay agent
// passes those over). Usage: node codex-lockstep-agent.mjs FILE
// - Agent lines are written in recorded order, up to the next recorded client request; that
//   request is waited for. The host's request matches it by method, and for `turn/start` /
//   `turn/steer` by its input text (and `expectedTurnId` for `turn/steer`); the recorded id is
//   mapped to the host's in the agent's answer.
// - A recorded request the host's next request does not match is one the host never sends (the
//   probe's deliberately wrong turn id): it is passed over and its answer dropped.
// - Client notifications (`initialized`) are not waited for.
import { readFileSync } from 'node:fs';

const [file] = process.argv.slice(2);
const wire = JSON.parse(readFileSync(file, 'utf8')).wire;
const idMap = new Map();
const skipped = new Set();
const inbox = [];
let i = 0;

const write = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
const text = (m) => (m.params?.input ?? []).map((p) => p.text ?? '').join('');

/** True when the host's request is the recorded one. */
function matches(recorded, ours) {
  if (recorded.method !== ours.method) return false;
  if (recorded.method === 'turn/start' || recorded.method === 'turn/steer') {
    if (text(recorded) !== text(ours)) return false;
  }
  if (recorded.method === 'turn/steer') return recorded.params.expectedTurnId === ours.params.expectedTurnId;
  return true;
}

function pump() {
  while (i < wire.length) {
    const w = wire[i];
    const m = w.msg;
    if (w.dir === 'agent->client') {
      i++;
      const isResponse = 'id' in m && m.method === undefined;
      if (isResponse && (skipped.has(m.id) || !idMap.has(m.id))) continue;
      write(isResponse ? { ...m, id: idMap.get(m.id) } : m);
      continue;
    }
    if (m.id === undefined) {
      i++;
      continue;
    }
    if (inbox.length === 0) return;
    if (matches(m, inbox[0])) {
      idMap.set(m.id, inbox.shift().id);
    } else {
      skipped.add(m.id);
    }
    i++;
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
    if (line.trim() === '') continue;
    const m = JSON.parse(line);
    if (m.method !== undefined && m.id !== undefined) inbox.push(m);
  }
  pump();
});
process.stdin.on('end', () => process.exit(0));
pump();
