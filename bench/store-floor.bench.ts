/**
 * What SQLite alone costs for the store's three hot operations, on the daemon's own schema and
 * pragmas (`openDb`, automatic checkpoints off as in the daemon), with rows shaped like a Claude
 * Code hook's (a `tool.requested`/`tool.completed` event of about 450 bytes, its `event_sessions`
 * count and its session row). These are floors for the other sections, not targets of their own:
 *
 * 1. A hook's group commit: one `BEGIN IMMEDIATE` transaction per hook (what concurrency 1 does)
 *    and one per 16 hooks (concurrency 16): CPU per hook, user and system, and WAL pages written
 *    per commit (frames appended to the `-wal` file).
 * 2. The search index's batches: `SearchIndexer.step` over the same events in batches of 16, 64
 *    and 256: CPU per event, and the fixed cost per batch and the cost per event fitted to them.
 * 3. Replay reads: a session's rows in its order through the store (`replayPages`), its JSON alone
 *    by raw statement (the growth section's floor), `length(json)` alone (the same row lookups
 *    without building a string), the index alone (row numbers only), and every row's JSON in
 *    row-number order (no lookup per row).
 *
 * BENCH_FLOOR_EVENTS (default 200,000) rows over 100 interleaved sessions for the replay part.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../main/core/store/open-db';
import { EventReplay } from '../main/core/store/event-replay';
import { SearchIndexer } from '../main/core/store/search-indexer';
import { report } from './bench-lib';

const EVENTS = Number(process.env.BENCH_FLOOR_EVENTS ?? 200_000);
const SESSIONS = 100;
const COMMITS = 5_000;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

const dir = mkdtempSync(join(tmpdir(), 'aep-bench-floor-'));
const file = join(dir, 'companion.db');
const db = openDb(file);

const insert = db.prepare(
  `INSERT INTO events (source, id, type, session, agent, epoch, seq, severity, time, cause, ord_epoch, ord_seq, ord_tie, json)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source, id) DO NOTHING`,
);
const count = db.prepare(
  `INSERT INTO event_sessions (session, held) VALUES (?, ?)
   ON CONFLICT (session) DO UPDATE SET held = held + excluded.held RETURNING held`,
);
const sessionRow = db.prepare(
  `INSERT INTO sessions (source, session, agent, vendor, cwd, state, first_seen_ms, last_seen_ms, last_hook)
   VALUES (?, ?, 'claude-code', 'claude-code', '/work/project', 'active', ?, ?, ?)
   ON CONFLICT (source, session) DO UPDATE SET
     last_seen_ms = MAX(sessions.last_seen_ms, excluded.last_seen_ms), last_hook = excluded.last_hook`,
);

let n = 0;
const seqs = new Map<string, number>();
/** Stores the n-th hook's event and refreshes its counts and session row (inside a transaction). */
function hook(): void {
  const i = n++;
  const session = `bench-${i % SESSIONS}`;
  const source = `aep://localhost/agent/claude-code/session/${session}`;
  const seq = (seqs.get(session) ?? 0) + 1;
  seqs.set(session, seq);
  const pre = i % 2 === 0;
  const call = `tu_${i - (i % 2)}`;
  const id = `01KB${Date.now().toString(32).toUpperCase().padStart(10, '0')}${String(i).padStart(12, '0')}`;
  const time = new Date().toISOString();
  const data = pre
    ? { tool: { name: 'Bash', call_id: call }, args_digest: 'b7709aebf37dc30c155bb4992b37c422', args_redacted: { command: `npm test alpha ticket${i % 5_000}` } }
    : { tool: { name: 'Bash', call_id: call }, result_digest: 'c74babc3149c482ea5b0c0de2245fa07', result_redacted: { stdout: `ok ${i}`, exit_code: 0 } };
  const type = pre ? 'tool.requested' : 'tool.completed';
  const json = JSON.stringify({ aep: '0.1', id, type, subject: 'Bash', time, source, agent: 'claude-code', session, seq, epoch: 0, capture: 'redacted', data });
  insert.run(source, id, type, session, 'claude-code', 0, seq, null, time, null, 0, seq, 0, json);
  count.get(session, 1);
  sessionRow.run(source, session, Date.now(), Date.now(), pre ? 'PreToolUse' : 'PostToolUse');
}

const walFrames = (): number => {
  try {
    return Math.max(0, (statSync(`${file}-wal`).size - 32) / (4_096 + 24));
  } catch {
    return 0;
  }
};

try {
  // Realistic b-tree depths before anything is measured.
  const fill = db.transaction((k: number) => {
    for (let j = 0; j < k; j++) hook();
  });
  for (let done = 0; done < 20_000; done += 1_000) fill(1_000);
  db.pragma('wal_checkpoint(TRUNCATE)');

  // 1. Group commits of 1 and of 16 hooks.
  const commit = db.transaction((k: number) => {
    for (let j = 0; j < k; j++) hook();
  });
  const commitFigures: Record<string, number> = {};
  for (const perCommit of [1, 16]) {
    for (let w = 0; w < 500; w++) commit.immediate(perCommit);
    const frames0 = walFrames();
    const cpu0 = process.cpuUsage();
    // 5,000 commits of one hook; 20,000 hooks in commits of 16.
    const commits = perCommit === 1 ? COMMITS : Math.ceil((4 * COMMITS) / perCommit);
    for (let c = 0; c < commits; c++) commit.immediate(perCommit);
    const cpu = process.cpuUsage(cpu0);
    const hooks = commits * perCommit;
    commitFigures[`${perCommit} hook(s) per commit: CPU µs per hook`] = round((cpu.user + cpu.system) / hooks);
    commitFigures[`${perCommit} hook(s) per commit: user µs per hook`] = round(cpu.user / hooks);
    commitFigures[`${perCommit} hook(s) per commit: system µs per hook`] = round(cpu.system / hooks);
    commitFigures[`${perCommit} hook(s) per commit: WAL pages per commit`] = round((walFrames() - frames0) / commits, 2);
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  report('store floor: a hook group commit (SQLite alone, daemon schema and pragmas)', commitFigures);

  // 2. Search index batches: the indexer itself, from an empty index each time.
  const events = (db.prepare('SELECT count(*) FROM events').pluck().get() as number);
  const batchCost: [number, number][] = [];
  const searchFigures: Record<string, number> = { events };
  // An FTS5 table's DELETE leaves delete markers in the index: drop and create it again instead.
  const ftsSql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'events_fts'").pluck().get() as string;
  for (const batch of [16, 64, 256]) {
    db.exec(`DROP TABLE events_fts; ${ftsSql}`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const indexer = new SearchIndexer(db, { batch, everyMs: 0 });
    const cpu0 = process.cpuUsage();
    let batches = 0;
    while (indexer.step(batch) > 0) batches++;
    const cpu = process.cpuUsage(cpu0);
    indexer.close();
    const us = cpu.user + cpu.system;
    searchFigures[`batch ${batch}: CPU µs per event`] = round(us / events);
    searchFigures[`batch ${batch}: CPU µs per batch`] = Math.round(us / batches);
    batchCost.push([batch, us / batches]);
  }
  // Least squares of (batch size, CPU per batch): the fixed cost of a batch and the cost per event.
  const mean = (f: (p: [number, number]) => number): number => batchCost.reduce((s, p) => s + f(p), 0) / batchCost.length;
  const mx = mean((p) => p[0]);
  const my = mean((p) => p[1]);
  const slope = mean((p) => (p[0] - mx) * (p[1] - my)) / mean((p) => (p[0] - mx) ** 2);
  searchFigures['fitted: CPU µs per batch, fixed'] = Math.round(my - slope * mx);
  searchFigures['fitted: CPU µs per event'] = round(slope);
  report('store floor: search index batches (SearchIndexer.step)', searchFigures);

  // 3. Replay reads over EVENTS rows in SESSIONS interleaved sessions.
  for (let done = events; done < EVENTS; done += 1_000) fill(Math.min(1_000, EVENTS - done));
  db.pragma('wal_checkpoint(TRUNCATE)');
  const sessions = db.prepare('SELECT session FROM event_sessions ORDER BY session').pluck().all() as string[];
  const ordered = (columns: string): string =>
    `SELECT ${columns} FROM events WHERE session = ? ORDER BY ord_epoch, ord_seq, ord_tie, n`;
  const perSession = (sql: string) => {
    const stmt = db.prepare(sql).raw(true);
    return (): number => {
      let rows = 0;
      for (const session of sessions) for (const _ of stmt.iterate(session)) rows++;
      return rows;
    };
  };
  const replay = new EventReplay(db);
  const reads: Record<string, () => number> = {
    'store replayPages, per session': () => {
      let rows = 0;
      for (const session of sessions) for (const page of replay.replayPages(session, null)) rows += page.length;
      return rows;
    },
    'raw json, per session': perSession(ordered('json')),
    'raw length(json), per session': perSession(ordered('length(json)')),
    'raw row number only (index), per session': perSession(ordered('n')),
    'raw json, all rows in row-number order': () => {
      let rows = 0;
      for (const _ of db.prepare('SELECT json FROM events ORDER BY n').raw(true).iterate()) rows++;
      return rows;
    },
  };
  const replayFigures: Record<string, number> = { events: EVENTS, sessions: SESSIONS };
  for (const [name, read] of Object.entries(reads)) {
    let best = 0;
    for (let r = 0; r < 2; r++) {
      const t = performance.now();
      const rows = read();
      best = Math.max(best, rows / ((performance.now() - t) / 1000));
    }
    replayFigures[`${name}: rows/s`] = Math.round(best);
  }
  report('store floor: replay reads (best of 2)', replayFigures);
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
