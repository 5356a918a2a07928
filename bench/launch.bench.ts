/**
 * Launched agents: (1) launch-to-first-event over the agent's own start time: `POST /api/launch`
 * until the session's first event reaches a WS consumer, against the same mock ACP agent started
 * directly and brought to an open session (initialize + session/new) over a bare pipe, measured in
 * the same run; (2) prompt command → agent stdin: `x.{agent}.control.send_input` sent on the
 * WebSocket until the agent reads its `session/prompt` line (p50/p99), against the floor of a line
 * written straight into the same agent's stdin.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { percentile, report, startBenchDaemon } from './bench-lib';

const MOCK = fileURLToPath(new URL('../test/support/mock-acp-agent.mjs', import.meta.url));
const LAUNCHES = Number(process.env.BENCH_LAUNCHES ?? 15);
const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 200);
const now = (): number => performance.timeOrigin + performance.now();

/** The agent's own start: spawn, initialize, session/new over a pipe (ms). */
async function rawStart(): Promise<number> {
  const t0 = now();
  const child = spawn(process.execPath, [MOCK], { stdio: ['pipe', 'pipe', 'ignore'] });
  let buffer = '';
  const answered = new Map<number, () => void>();
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    buffer += c;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const m = JSON.parse(buffer.slice(0, nl)) as { id?: number };
      buffer = buffer.slice(nl + 1);
      if (typeof m.id === 'number') answered.get(m.id)?.();
    }
  });
  const ask = (id: number, method: string, params: unknown) =>
    new Promise<void>((resolve) => {
      answered.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await ask(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await ask(2, 'session/new', { cwd: tmpdir(), mcpServers: [] });
  const ms = now() - t0;
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
  return ms;
}

/** Floor: a line written straight into the agent's stdin until it reads it (ms each). */
async function pipeFloor(record: string, n: number): Promise<number[]> {
  const child = spawn(process.execPath, [MOCK, `--record=${record}`], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  child.stdout.resume();
  await new Promise((r) => setTimeout(r, 300));
  const sent: number[] = [];
  for (let i = 0; i < n; i++) {
    sent.push(now());
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'bench/ping', params: { i } })}\n`,
    );
    await new Promise((r) => setTimeout(r, 2));
  }
  await new Promise((r) => setTimeout(r, 200));
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
  const got = readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((l) => Number(l.split(' ')[0]));
  return got.map((t, i) => t - sent[i]);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aep-bench-launch-'));
  const daemon = await startBenchDaemon();
  try {
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${daemon.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${daemon.operator}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const record = join(dir, 'stdin.log');
    await api('PATCH', '/api/settings', {
      'features.steering': true,
      'agents.qwen-code.command': [process.execPath, MOCK, `--record=${record}`],
    });
    const ws = new WebSocket(`${daemon.url.replace(/^http/, 'ws')}/socket`, {
      headers: { authorization: `Bearer ${daemon.operator}` },
    });
    await new Promise((r) => ws.once('open', r));
    const listeners = new Set<(e: Record<string, unknown>) => void>();
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw)) as Record<string, unknown>;
      const e = (m.type === 'event' ? m.event : m) as Record<string, unknown>;
      if (typeof e.aep === 'string') for (const l of [...listeners]) l(e);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        versions: ['0.1'],
        role: 'consumer',
        identity: { agent: 'bench' },
      }),
    );
    ws.send(JSON.stringify({ type: 'subscribe', id: 'all' }));
    await new Promise((r) => setTimeout(r, 200));
    const waitEvent = (pred: (e: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const l = (e: Record<string, unknown>) => {
          if (!pred(e)) return;
          listeners.delete(l);
          resolve(e);
        };
        listeners.add(l);
      });

    const raw: number[] = [];
    const launched: number[] = [];
    let session = '';
    for (let i = 0; i < LAUNCHES; i++) {
      raw.push(await rawStart());
      const t0 = now();
      let first: Promise<Record<string, unknown>> | null = null;
      first = waitEvent((e) => e.agent === 'qwen-code' && e.type === 'session.started');
      const res = await api('POST', '/api/launch', { agent: 'qwen-code', cwd: dir });
      const event = await first;
      launched.push(now() - t0);
      if (event.session !== res.session) throw new Error('first event of another session');
      session = String(res.session);
      if (i < LAUNCHES - 1) await api('POST', '/api/launched/end', { session });
    }
    raw.sort((a, b) => a - b);
    launched.sort((a, b) => a - b);

    const sentAt: number[] = [];
    for (let i = 0; i < PROMPTS; i++) {
      const id = `01BENCH${String(i).padStart(19, '0')}`;
      const done = waitEvent((e) => e.session === session && e.type === 'run.finished');
      sentAt.push(now());
      ws.send(
        JSON.stringify({
          aep: '0.1',
          id,
          type: 'x.qwen-code.control.send_input',
          time: new Date().toISOString(),
          source: 'aep://localhost/agent/bench',
          agent: 'operator',
          session,
          capture: 'redacted',
          data: { text: `p${i}` },
        }),
      );
      await done;
    }
    const lines = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l.includes('"session/prompt"') && l.includes(`"${session}"`));
    if (lines.length < PROMPTS)
      throw new Error(`the agent read ${lines.length} of ${PROMPTS} prompts`);
    const promptLatency = lines
      .slice(-PROMPTS)
      .map((l, i) => Number(l.split(' ')[0]) - sentAt[i])
      .sort((a, b) => a - b);
    const floor = (await pipeFloor(join(dir, 'floor.log'), PROMPTS)).sort((a, b) => a - b);
    ws.close();
    const p50 = (xs: number[]) => percentile(xs, 50);
    const p99 = (xs: number[]) => percentile(xs, 99);
    report('launched agents (mock ACP agent)', {
      'agent own start p50 ms': Number(p50(raw).toFixed(1)),
      'launch → first event p50 ms': Number(p50(launched).toFixed(1)),
      'launch overhead p50 ms': Number((p50(launched) - p50(raw)).toFixed(1)),
      'launch / own start (p50 ratio)': Number((p50(launched) / p50(raw)).toFixed(2)),
      'prompt cmd → agent stdin p50 ms': Number(p50(promptLatency).toFixed(2)),
      'prompt cmd → agent stdin p99 ms': Number(p99(promptLatency).toFixed(2)),
      'pipe floor p99 ms': Number(p99(floor).toFixed(2)),
      'prompt p99 / pipe floor p99': Number(
        (p99(promptLatency) / Math.max(0.01, p99(floor))).toFixed(1),
      ),
    });
  } finally {
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
