/**
 * What a sleep costs the code that runs right after it, on this machine. At concurrency 1 the
 * daemon sleeps in `epoll_wait` between two hooks, and every hook's code then runs first thing
 * after a wake-up; at concurrency 16 the hooks of one wake-up run one after another. This section
 * gives the machine's figure for that difference, so the hook section's c1 ratios can be read
 * against it: a fixed piece of hook-like work (parse a Claude Code hook payload, build and
 * serialize an event, a one-shot SHA-256, a regular expression, one INSERT into an in-memory
 * SQLite table through better-sqlite3) is timed back to back (the floor), then as the first and
 * the second call after the thread slept (`Atomics.wait`, which leaves the CPU idle as
 * `epoll_wait` does) for 0.05, 0.3 and 1 ms. The control reads 256 KiB of data, one load per
 * cache line and almost no code, back to back and first thing after 0.3 ms asleep: when it barely
 * moves while the work's first call does, what a sleep costs is the state of running code
 * (instruction caches, branch predictors), not the data caches.
 *
 * BENCH_WAKE_ROUNDS (default 3,000) timed calls per figure.
 */
import { hash } from 'node:crypto';
import Database from 'better-sqlite3';
import { percentile, report } from './bench-lib';

const ROUNDS = Number(process.env.BENCH_WAKE_ROUNDS ?? 3_000);
const SLEEPS_MS = [0.05, 0.3, 1];

const db = new Database(':memory:');
db.exec(
  'CREATE TABLE events (n INTEGER PRIMARY KEY, id TEXT NOT NULL, session TEXT NOT NULL, json TEXT NOT NULL)',
);
db.exec('CREATE INDEX events_session ON events (session, n)');
const insert = db.prepare('INSERT INTO events (id, session, json) VALUES (?, ?, ?)');
const prune = db.prepare('DELETE FROM events WHERE n <= ?');

let calls = 0;
/** One hook-like piece of work; returns something so nothing is optimized away. */
function work(): number {
  const i = calls++;
  const body = JSON.stringify({
    hook_event_name: i % 2 === 0 ? 'PreToolUse' : 'PostToolUse',
    session_id: `s-${i % 16}`,
    cwd: '/work/project',
    tool_name: 'Bash',
    tool_input: { command: `echo ${i}` },
    tool_use_id: `tu_${i - (i % 2)}`,
  });
  const payload = JSON.parse(body) as Record<string, unknown>;
  const event = {
    specversion: '0.1',
    id: `01J${i.toString(36).padStart(23, '0')}`,
    type: payload.hook_event_name === 'PreToolUse' ? 'tool.requested' : 'tool.completed',
    session: payload.session_id,
    time: new Date(1_700_000_000_000 + i).toISOString(),
    data: {
      tool: payload.tool_name,
      input: payload.tool_input,
      digest: hash('sha256', body, 'hex'),
    },
  };
  const json = JSON.stringify(event);
  const redacted = /sk-[A-Za-z0-9]{20,}/.test(json)
    ? json.replace(/sk-[A-Za-z0-9]{20,}/g, '[redacted]')
    : json;
  const n = Number(insert.run(event.id, event.session, redacted).lastInsertRowid);
  if (n % 1_000 === 0) prune.run(n);
  return n + redacted.length;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number): void => void Atomics.wait(sleeper, 0, 0, ms);
const time = (fn: () => number = work): number => {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1_000;
};

/** The control: data alone, no code to speak of (one load per 64-byte line of 256 KiB). */
const data = new Float64Array(32 * 1024);
const readData = (): number => {
  let sum = 0;
  for (let i = 0; i < data.length; i += 8) sum += data[i];
  return sum;
};
const median = (xs: number[]): number =>
  percentile(
    xs.sort((a, b) => a - b),
    50,
  );
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

for (let i = 0; i < 20_000; i++) work(); // warm: every function optimized

const warm: number[] = [];
for (let i = 0; i < ROUNDS; i++) warm.push(time());
const floor = median(warm);
const figures: Record<string, number> = { 'back to back µs per call (floor)': round(floor) };
for (const ms of SLEEPS_MS) {
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    sleep(ms);
    first.push(time());
    second.push(time());
  }
  const a = median(first);
  const b = median(second);
  figures[`after ${ms} ms asleep: first call µs`] = round(a);
  figures[`after ${ms} ms asleep: first call ÷ floor`] = round(a / floor);
  figures[`after ${ms} ms asleep: second call ÷ floor`] = round(b / floor);
}
for (let i = 0; i < 2_000; i++) readData();
const dataWarm: number[] = [];
const dataFirst: number[] = [];
for (let i = 0; i < ROUNDS; i++) dataWarm.push(time(readData));
for (let i = 0; i < ROUNDS; i++) {
  sleep(0.3);
  dataFirst.push(time(readData));
}
figures['control, 256 KiB of data read: back to back µs'] = round(median(dataWarm));
figures['control, 256 KiB of data read: first call after 0.3 ms asleep ÷ back to back'] = round(
  median(dataFirst) / median(dataWarm),
);
db.close();
report('code run right after a sleep (medians)', figures);
