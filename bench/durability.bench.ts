/**
 * Durability under kill -9: hooks are posted at concurrency 16 to a `serve` child, each a session
 * of its own; once BENCH_KILL_AFTER (1,500) have been answered the daemon is killed with SIGKILL
 * mid-burst, started again on the same data directory, and every answered (acknowledged) hook's
 * session is looked for in the store. Target: 0 acknowledged hooks lost.
 */
import Database from 'better-sqlite3';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { report, startBenchDaemon } from './bench-lib';

const KILL_AFTER = Number(process.env.BENCH_KILL_AFTER ?? 1_500);

function postHook(agent: Agent, url: string, token: string, i: number): Promise<number> {
  const body = JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: `kill-${i}`,
    cwd: '/w',
    tool_name: 'Bash',
    tool_input: { command: `echo ${i}` },
    tool_use_id: `tu_${i}`,
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/hooks/claude-code`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const first = await startBenchDaemon();
const acked: number[] = [];
let killed = false;
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (!killed) {
      const i = next++;
      try {
        if ((await postHook(agent, first.url, first.hook, i)) === 200) acked.push(i);
      } catch {
        // The daemon died with this hook unanswered: not acknowledged, so not counted.
        return;
      }
      if (acked.length >= KILL_AFTER && !killed) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    }
  }),
);
agent.destroy();
await first.stop({ keep: true });
const second = await startBenchDaemon([], { dir: first.dir });
await second.stop({ keep: true });
const db = new Database(join(second.dataDir, 'companion.db'), {
  readonly: true,
  fileMustExist: true,
});
const stored = new Set(
  (
    db.prepare(`SELECT DISTINCT session FROM events WHERE session LIKE 'kill-%'`).all() as {
      session: string;
    }[]
  ).map((r) => r.session),
);
db.close();
second.remove();
const lost = acked.filter((i) => !stored.has(`kill-${i}`)).length;
report('durability (kill -9 mid-burst, counted after the restart)', {
  'hooks sent': next,
  'hooks acknowledged before the kill': acked.length,
  'acknowledged hooks found after the restart': acked.length - lost,
  'acknowledged hooks lost (target 0)': lost,
  'unacknowledged hooks stored as well': stored.size - (acked.length - lost),
  pass: lost === 0,
});
