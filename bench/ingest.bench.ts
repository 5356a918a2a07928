/**
 * Durable ingest: NDJSON batches of 1,000 POSTed to a `serve` child with 10 live SSE subscribers,
 * in events/s, and its ratio to a raw better-sqlite3 batched insert of the same rows measured in
 * the same run. Then, without subscribers, the store is filled to 1,000,000 events and the
 * daemon's RSS is read; finally the replay rate from the store (in-process) and over SSE.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore } from '../main/core/store/event-store';
import { openDb } from '../main/core/store/open-db';
import { rawInsertBaseline } from './raw-insert-baseline';
import { postNdjson, processCpuMs, report, startBenchDaemon, toolEvent } from './bench-lib';

const MEASURED = Number(process.env.BENCH_INGEST_EVENTS ?? 200_000);
const TOTAL = Number(process.env.BENCH_TOTAL_EVENTS ?? 1_000_000);
const SESSIONS = 200;
const BATCH = 1_000;
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10);
const CONCURRENCY = 2;

/** Batches of NDJSON text covering events [from, to), spread round-robin over the sessions. */
function* batches(
  from: number,
  to: number,
): Generator<{ body: string; items: { json: string; event: ReturnType<typeof toolEvent> }[] }> {
  for (let start = from; start < to; start += BATCH) {
    const items = [];
    for (let i = start; i < Math.min(to, start + BATCH); i++) {
      const event = toolEvent(`s${i % SESSIONS}`, Math.floor(i / SESSIONS) + 1);
      items.push({ event, json: JSON.stringify(event) });
    }
    yield { body: items.map((x) => x.json).join('\n'), items };
  }
}

async function postAll(url: string, token: string, from: number, to: number): Promise<number> {
  const bodies = [...batches(from, to)].map((b) => b.body);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const status = await postNdjson(url, token, body);
        if (status !== 202) throw new Error(`POST answered ${status}`);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

/** An SSE subscriber that only counts events (no parsing: the bench measures the daemon). */
function subscribe(
  url: string,
  token: string,
  query = '',
): { count: () => number; done: Promise<void>; close: () => void } {
  let events = 0;
  let req: ReturnType<typeof request> | undefined;
  const done = new Promise<void>((resolve, reject) => {
    req = request(
      `${url}/stream${query}`,
      { headers: { Authorization: `Bearer ${token}` } },
      (res) => {
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const text = tail + chunk;
          let at = text.indexOf('\ndata: ');
          let last = 0;
          while (at !== -1) {
            events++;
            last = at + 7;
            at = text.indexOf('\ndata: ', last);
          }
          tail = text.slice(Math.max(last, text.length - 8));
        });
        res.on('end', () => resolve());
        res.on('error', () => resolve());
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { count: () => events, done, close: () => req?.destroy() };
}

async function main(): Promise<void> {
  const daemon = await startBenchDaemon([
    '--max-events-per-session',
    String(Math.ceil(TOTAL / SESSIONS) + 10),
  ]);
  try {
    const subs = Array.from({ length: SUBSCRIBERS }, () => subscribe(daemon.url, daemon.operator));
    await new Promise((r) => setTimeout(r, 300));
    const cpuBefore = processCpuMs(daemon.child.pid);
    const seconds = await postAll(daemon.url, daemon.hook, 0, MEASURED);
    const ingestRate = MEASURED / seconds;
    const deadline = Date.now() + 30_000;
    while (subs.some((s) => s.count() < MEASURED) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    // Daemon CPU for admitting the events and delivering them to every subscriber.
    const daemonCpuUs = ((processCpuMs(daemon.child.pid) - cpuBefore) * 1000) / MEASURED;
    const delivered = Math.min(...subs.map((s) => s.count()));
    for (const s of subs) s.close();

    const baseDir = mkdtempSync(join(tmpdir(), 'aep-bench-raw-'));
    const items = [...batches(0, MEASURED)].flatMap((b) => b.items);
    const rawCpu = process.cpuUsage();
    const raw = rawInsertBaseline(join(baseDir, 'raw.db'), items, BATCH);
    const rawCpuUsed = process.cpuUsage(rawCpu);
    const rawCpuUs = (rawCpuUsed.user + rawCpuUsed.system) / MEASURED;
    rmSync(baseDir, { recursive: true, force: true });

    report('ingest', {
      events: MEASURED,
      subscribers: SUBSCRIBERS,
      'events/s': Math.round(ingestRate),
      'raw insert events/s': Math.round(raw.eventsPerSecond),
      ratio: Number((ingestRate / raw.eventsPerSecond).toFixed(3)),
      'daemon CPU µs/event': Number(daemonCpuUs.toFixed(2)),
      'raw insert CPU µs/event': Number(rawCpuUs.toFixed(2)),
      'CPU-time ratio (raw/daemon)': Number((rawCpuUs / daemonCpuUs).toFixed(3)),
      'every subscriber got every event': delivered >= MEASURED,
      'target events/s': 30_000,
      'target ratio': 0.3,
      pass: ingestRate >= 30_000 && ingestRate / raw.eventsPerSecond >= 0.3,
    });

    if (TOTAL > MEASURED) await postAll(daemon.url, daemon.hook, MEASURED, TOTAL);
    await new Promise((r) => setTimeout(r, 500));
    const rss = daemon.rssMiB();
    report('rss', {
      events: TOTAL,
      'rss MiB': Number(rss.toFixed(1)),
      'target MiB': 200,
      pass: rss <= 200,
    });

    const sseStart = performance.now();
    const sseCpu = processCpuMs(daemon.child.pid);
    const all = subscribe(daemon.url, daemon.operator, '?from=all&live=0');
    await all.done;
    const sseRate = all.count() / ((performance.now() - sseStart) / 1000);
    const sseCpuUs = ((processCpuMs(daemon.child.pid) - sseCpu) * 1000) / all.count();
    report('replay-sse', {
      events: all.count(),
      'events/s': Math.round(sseRate),
      'daemon CPU µs/event': Number(sseCpuUs.toFixed(2)),
    });
    await daemon.stop({ keep: true });

    // Replay straight from the store, in this process, over the database the daemon wrote.
    const db = openDb(join(daemon.dataDir, 'companion.db'));
    const store = new EventStore(db, { maxEventsPerSession: Math.ceil(TOTAL / SESSIONS) + 10 });
    const started = performance.now();
    const cpu = process.cpuUsage();
    let count = 0;
    for (const session of store.heldSessions())
      for (const _ of store.replay(session, null)) count++;
    const rate = count / ((performance.now() - started) / 1000);
    const cpuUsed = process.cpuUsage(cpu);
    db.close();
    report('replay', {
      events: count,
      'events/s': Math.round(rate),
      'events per CPU-second': Math.round(count / ((cpuUsed.user + cpuUsed.system) / 1e6)),
      'target events/s': 100_000,
      pass: rate >= 100_000,
    });
  } finally {
    await daemon.stop().catch(() => undefined);
    daemon.remove();
  }
}

await main();
