#!/usr/bin/env node
// Replays the agent side of a recorded wire file (research/acp-wire/*.json) on stdio, for the host
// tests. Usage: node replay-wire-agent.mjs FILE [--report=PATH]
// - Agent lines are written in recorded order; a recorded client request the host also sends
//   (initialize, authenticate, session/new|load, session/prompt, thread/start|resume, turn/start) is waited for,
//   and its recorded id is mapped to the host's id in the agent's answers.
// - Recorded client lines the host never sends (turn/steer, _session/steering, turn/interrupt,
//   notifications) are passed over; answers to them are dropped.
// - The host sends one prompt at a time: when it waits for a prompt it will only send after the
//   previous one settled, that settlement (the prompt response, or Codex's turn/completed) is
//   written first.
// - A recorded prompt the agent never settled, or a Codex turn/start that joined a running turn,
//   is one the host never sends: passed over like the above.
// --report appends one JSON line per prompt received: { method, overlap } (and one per authenticate) (overlap = a prompt of
// ours was still unanswered), so a test proves no concurrent prompt was ever sent.
import { appendFileSync, readFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
const report = rest.find((a) => a.startsWith('--report='))?.slice('--report='.length) ?? null;
const wire = JSON.parse(readFileSync(file, 'utf8')).wire;
const SENT = new Set(['initialize', 'authenticate', 'session/new', 'session/load', 'session/prompt', 'thread/start', 'thread/resume', 'turn/start']);
const PROMPTS = new Set(['session/prompt', 'turn/start']);
const version = wire.find((w) => w.msg && 'jsonrpc' in w.msg) ? { jsonrpc: '2.0' } : {};

// Recorded prompts the host will never send (it sends one at a time, and only turns that end on
// their own): an ACP prompt the agent never answered (stranded), a Codex turn/start answered with
// a turn that was already running (a steer in disguise).
const neverSent = new Set();
{
  const answers = new Map(wire.filter((w) => w.dir === 'agent->client' && w.msg.method === undefined).map((w) => [w.msg.id, w.msg]));
  const turns = new Set();
  for (const w of wire) {
    if (w.dir !== 'client->agent' || !PROMPTS.has(w.msg.method)) continue;
    const answer = answers.get(w.msg.id);
    if (answer === undefined) neverSent.add(w.msg.id);
    const turn = answer?.result?.turn?.id;
    if (typeof turn === 'string') {
      if (turns.has(turn)) neverSent.add(w.msg.id);
      turns.add(turn);
    }
  }
}
const idMap = new Map();
const skipped = new Set();
const consumed = new Set();
const pendingPrompts = []; // recorded ids of ACP prompts sent and unanswered
const openTurns = new Set(); // Codex turn ids started and not completed
const inbox = [];
let ourOpenPrompts = 0;
let i = 0;

const write = (m) => process.stdout.write(`${JSON.stringify({ ...version, ...m })}\n`);

function emitAgent(index) {
  consumed.add(index);
  const m = structuredClone(wire[index].msg);
  const isResponse = 'id' in m && m.method === undefined;
  if (isResponse) {
    if (skipped.has(m.id)) return;
    if (!idMap.has(m.id)) return;
    const recorded = m.id;
    m.id = idMap.get(recorded);
    const p = pendingPrompts.indexOf(recorded);
    if (p !== -1) {
      pendingPrompts.splice(p, 1);
      ourOpenPrompts = Math.max(0, ourOpenPrompts - 1);
    }
    const turnId = m.result?.turn?.id;
    if (typeof turnId === 'string') openTurns.add(turnId);
  }
  if (m.method === 'turn/completed' && openTurns.delete(m.params?.turn?.id)) ourOpenPrompts = Math.max(0, ourOpenPrompts - 1);
  write(m);
}

/** The index of the recorded settlement of our oldest open prompt, or -1. */
function settlementIndex() {
  for (let j = i; j < wire.length; j++) {
    if (consumed.has(j) || wire[j].dir !== 'agent->client') continue;
    const m = wire[j].msg;
    if (pendingPrompts.length > 0 && m.id === pendingPrompts[0] && m.method === undefined) return j;
    if (openTurns.size > 0 && m.method === 'turn/completed' && openTurns.has(m.params?.turn?.id)) return j;
  }
  return -1;
}

function pump() {
  while (i < wire.length) {
    if (consumed.has(i)) {
      i++;
      continue;
    }
    const w = wire[i];
    if (w.dir === 'agent->client') {
      emitAgent(i++);
      continue;
    }
    const m = w.msg;
    if (m.method === undefined || m.id === undefined || !SENT.has(m.method) || neverSent.has(m.id)) {
      if (m.id !== undefined && m.method !== undefined) skipped.add(m.id);
      i++;
      continue;
    }
    const k = inbox.findIndex((x) => x.method === m.method);
    if (k !== -1) {
      const ours = inbox.splice(k, 1)[0];
      idMap.set(m.id, ours.id);
      if (m.method === 'session/prompt') pendingPrompts.push(m.id);
      i++;
      continue;
    }
    if (m.method === 'authenticate' && inbox.some((x) => x.method === 'session/new')) {
      // The host had no credentials to authenticate with: the recorded step is passed over.
      skipped.add(m.id);
      i++;
      continue;
    }
    if (PROMPTS.has(m.method)) {
      const j = settlementIndex();
      if (j !== -1) {
        emitAgent(j);
        continue;
      }
    }
    return;
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
    if (m.method === undefined) continue;
    if (PROMPTS.has(m.method)) {
      if (report) appendFileSync(report, `${JSON.stringify({ method: m.method, overlap: ourOpenPrompts > 0 })}\n`);
      ourOpenPrompts++;
    }
    if (m.method === 'authenticate' && report) appendFileSync(report, `${JSON.stringify({ method: m.method, params: m.params })}\n`);
    if (m.id !== undefined && SENT.has(m.method)) inbox.push(m);
  }
  pump();
});
process.stdin.on('end', () => process.exit(0));
pump();
