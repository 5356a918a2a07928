/**
 * Mid-turn steering: steer command → agent stdin. `x.{agent}.control.send_input { delivery: "now" }`
 * sent on the WebSocket while a turn runs, until the mock agent (`--steer=fold`) reads the steer's
 * concurrent `session/prompt` line (p50/p99), against the floor of a line written straight into the
 * same agent's stdin, measured in the same run. One steer per turn (at most one is ever in flight).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { percentile, report, startBenchDaemon } from './bench-lib';

const MOCK = fileURLToPath(new URL('../test/support/mock-acp-agent.mjs', import.meta.url));
const STEERS = Number(process.env.BENCH_STEERS ?? 100);
const now = (): number => performance.timeOrigin + performance.now();

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
  const dir = mkdtempSync(join(tmpdir(), 'aep-bench-steer-'));
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
      'features.midTurnSteering': true,
      'agents.claude-code.command': [
        process.execPath,
        MOCK,
        '--steer=fold',
        '--turn-delay=40',
        `--record=${record}`,
      ],
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
    const res = await api('POST', '/api/launch', { agent: 'claude-code', cwd: dir });
    const session = String(res.session);
    const command = (id: string, text: string, delivery: string) =>
      ws.send(
        JSON.stringify({
          aep: '0.1',
          id,
          type: 'x.claude-code.control.send_input',
          time: new Date().toISOString(),
          source: 'aep://localhost/agent/bench',
          agent: 'operator',
          session,
          capture: 'redacted',
          data: { text, delivery },
        }),
      );

    const sentAt: number[] = [];
    let steered = 0;
    for (let i = 0; i < STEERS; i++) {
      const tool = waitEvent((e) => e.session === session && e.type === 'tool.requested');
      command(`01BENCHT${String(i).padStart(18, '0')}`, `turn ${i}`, 'queue');
      await tool;
      const id = `01BENCHS${String(i).padStart(18, '0')}`;
      const settled = waitEvent((e) => e.cause === id && e.type === 'x.claude-code.input.settled');
      const finished = waitEvent((e) => e.session === session && e.type === 'run.finished');
      sentAt.push(now());
      command(id, `steer ${i}`, 'now');
      if (
        (await settled).data &&
        ((await settled).data as Record<string, unknown>).outcome === 'steered'
      )
        steered += 1;
      await finished;
    }
    const lines = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l.includes('"session/prompt"') && /"text":"steer \d+"/.test(l));
    if (lines.length < STEERS)
      throw new Error(`the agent read ${lines.length} of ${STEERS} steers`);
    const latency = lines
      .slice(-STEERS)
      .map((l, i) => Number(l.split(' ')[0]) - sentAt[i])
      .sort((a, b) => a - b);
    const floor = (await pipeFloor(join(dir, 'floor.log'), STEERS)).sort((a, b) => a - b);
    ws.close();
    const p99 = (xs: number[]) => percentile(xs, 99);
    report('mid-turn steering (mock agent, fold)', {
      steers: STEERS,
      'steered outcomes': steered,
      'steer cmd → agent stdin p50 ms': Number(percentile(latency, 50).toFixed(2)),
      'steer cmd → agent stdin p99 ms': Number(p99(latency).toFixed(2)),
      'pipe floor p99 ms': Number(p99(floor).toFixed(2)),
      'steer p99 / pipe floor p99': Number((p99(latency) / Math.max(0.01, p99(floor))).toFixed(1)),
    });
  } finally {
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
