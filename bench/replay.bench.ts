/**
 * Replay: a session's stored history read back over SSE (`GET /stream?live=0` from the session's
 * start position) by a client, in events/s, against the floor of a raw read of the same rows
 * (better-sqlite3 in this process, the session-order index, the stored JSON alone) on the same
 * database, measured in the same run. BENCH_REPLAY_SESSIONS (20) sessions of
 * BENCH_REPLAY_PER_SESSION (5,000) events are ingested interleaved, as live agents write them.
 */
import Database from 'better-sqlite3';
import { request } from 'node:http';
import { join } from 'node:path';
import { percentile, postNdjson, report, startBenchDaemon } from './bench-lib';

const SESSIONS = Number(process.env.BENCH_REPLAY_SESSIONS ?? 20);
const PER_SESSION = Number(process.env.BENCH_REPLAY_PER_SESSION ?? 5_000);
const RUNS = Number(process.env.BENCH_REPLAY_RUNS ?? 5);
const BATCH = 1_000;

/** One tool event of session `s`, as a hook adapter writes it. */
const line = (s: number, seq: number): string =>
  JSON.stringify({
    aep: '0.1',
    id: `01JREPLAY${String(s).padStart(4, '0')}${String(seq).padStart(12, '0')}`,
    type: seq % 2 === 0 ? 'tool.requested' : 'tool.completed',
    subject: 'Bash',
    time: new Date(1_780_000_000_000 + seq).toISOString(),
    source: `aep://bench/replay/${s}`,
    agent: 'claude-code',
    session: `replay-${s}`,
    seq,
    epoch: 0,
    capture: 'redacted',
    data: {
      tool: { name: 'Bash', call_id: `c${seq - (seq % 2)}` },
      args_redacted: { command: `npm run step -- ${seq}` },
    },
  });

/** Events/s of one SSE replay of `session` (counts `data:` lines until the stream ends). */
function sseReplay(
  url: string,
  token: string,
  session: string,
): Promise<{ events: number; rate: number }> {
  // From the session's start position: the per-session replay a resuming consumer asks for.
  const query = new URLSearchParams({
    from: JSON.stringify([{ session, epoch: 0, seq: 0 }]),
    live: '0',
    filter: JSON.stringify({ session: [session] }),
  });
  return new Promise((resolve, reject) => {
    const t = performance.now();
    let events = 0;
    let tail = '';
    const req = request(
      `${url}/stream?${query}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200)
          return reject(new Error(`GET /stream answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const text = tail + chunk;
          const cut = text.lastIndexOf('\n');
          for (const l of text.slice(0, cut + 1).split('\n')) if (l.startsWith('data:')) events++;
          tail = text.slice(cut + 1);
        });
        res.on('end', () => resolve({ events, rate: events / ((performance.now() - t) / 1000) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const daemon = await startBenchDaemon();
try {
  for (let seq = 1; seq <= PER_SESSION; seq += BATCH / SESSIONS) {
    const lines: string[] = [];
    for (let k = seq; k < seq + BATCH / SESSIONS && k <= PER_SESSION; k++)
      for (let s = 0; s < SESSIONS; s++) lines.push(line(s, k));
    const status = await postNdjson(daemon.url, daemon.hook, `${lines.join('\n')}\n`);
    if (status !== 200 && status !== 202) throw new Error(`POST /events answered ${status}`);
  }
  const db = new Database(join(daemon.dataDir, 'companion.db'), {
    readonly: true,
    fileMustExist: true,
  });
  const raw = db.prepare(
    'SELECT json FROM events WHERE session = ? ORDER BY ord_epoch, ord_seq, ord_tie',
  );
  // Every answered batch is committed; a moment's grace for a commit still on its way to the file.
  const total = db.prepare('SELECT count(*) AS n FROM events');
  for (let i = 0; i < 100 && (total.get() as { n: number }).n < SESSIONS * PER_SESSION; i++)
    await new Promise((r) => setTimeout(r, 100));
  const sse: number[] = [];
  const floor: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const session = `replay-${run % SESSIONS}`;
    const t = performance.now();
    const rows = raw.all(session).length;
    floor.push(rows / ((performance.now() - t) / 1000));
    const got = await sseReplay(daemon.url, daemon.operator, session);
    if (got.events !== PER_SESSION || rows !== PER_SESSION)
      throw new Error(`replayed ${got.events} and read ${rows} of ${PER_SESSION} events`);
    sse.push(got.rate);
  }
  db.close();
  const median = (v: number[]) =>
    percentile(
      [...v].sort((a, b) => a - b),
      50,
    );
  report('replay (one session over SSE, interleaved history)', {
    'events stored': SESSIONS * PER_SESSION,
    'events per session': PER_SESSION,
    runs: RUNS,
    'raw read events/s, median (floor)': Math.round(median(floor)),
    'SSE replay events/s, median': Math.round(median(sse)),
    'ratio to the raw read': Number((median(sse) / median(floor)).toFixed(3)),
  });
} finally {
  await daemon.stop();
}
