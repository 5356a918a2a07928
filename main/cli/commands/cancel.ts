/**
 * `aep-companion cancel <session> [--session-scope | --resume-queue] [--data-dir DIR]`:
 * `control.cancel` (AEP-0004 §5) to a launched session: scope `run` stops the running turn
 * (session/cancel, turn/interrupt) and holds the session's queue (nothing queued is sent until the
 * operator resumes it or sends); `--session-scope` ends the session; `--resume-queue` lets a held
 * queue flow again. Waits for the cause-linked `run.cancelled` (or `session.ended`). Exit codes:
 * 0 done, 3 rejected (e.g. no turn running, queue not held), 4 no ack, 2 usage, 1 cannot reach the daemon.
 */
import type { PendingList } from '../../../common/agent-inputs';
import { daemonUrl, helpOrRefusal, operatorToken, parseArgs, resolveDataDir } from '../locate-daemon';
import { EXIT, sendSessionCommand } from './session-command';

const USAGE = 'usage: aep-companion cancel <session> [--session-scope | --resume-queue] [--data-dir DIR]\n';

/** GET or POST one pending-list route; the parsed body, or the daemon's error sentence. */
async function pendingCall(url: string, token: string, method: 'GET' | 'POST', path: string, session: string): Promise<{ ok: boolean; status: number; body: Record<string, unknown> }> {
  const target = new URL(path, url);
  if (method === 'GET') target.searchParams.set('session', session);
  const res = await fetch(target, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    ...(method === 'POST' ? { body: JSON.stringify({ session }) } : {}),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: res.ok, status: res.status, body };
}

const held = (list: PendingList): string | null =>
  list.paused ? `queue held: ${list.items.length} message${list.items.length === 1 ? '' : 's'} wait; resume with 'aep-companion cancel ${list.session} --resume-queue' or send a message` : null;

export async function run(args: string[]): Promise<number> {
  const parsed = parseArgs(args, ['data-dir']);
  const [session, ...extra] = parsed.positionals;
  const refusal = helpOrRefusal('cancel', { positionals: extra, options: parsed.options }, new Set(['data-dir', 'session-scope', 'resume-queue']), USAGE);
  if (refusal !== null) return refusal;
  if (!session || (parsed.options.get('session-scope') === true && parsed.options.get('resume-queue') === true)) {
    process.stderr.write(USAGE);
    return EXIT.usage;
  }
  const flag = parsed.options.get('data-dir');
  const dataDir = resolveDataDir(typeof flag === 'string' ? flag : undefined);
  const token = operatorToken(dataDir);
  if (!token) {
    process.stderr.write(`aep-companion cancel: no operator token (AEP_OPERATOR_TOKEN, or ${dataDir}/operator-token)\n`);
    return EXIT.unreachable;
  }
  const url = daemonUrl(dataDir);
  if (parsed.options.get('resume-queue') === true) {
    try {
      const r = await pendingCall(url, token, 'POST', '/api/pending/resume', session);
      if (!r.ok) {
        process.stderr.write(`aep-companion cancel: ${typeof r.body['detail'] === 'string' ? r.body['detail'] : `the daemon answered ${r.status}`}\n`);
        return EXIT.rejected;
      }
      process.stdout.write(`queue resumed: ${(r.body as unknown as PendingList).items.length} message(s) go in order\n`);
      return EXIT.ok;
    } catch (error) {
      process.stderr.write(`aep-companion cancel: cannot reach the daemon at ${url} (${String(error)})\n`);
      return EXIT.unreachable;
    }
  }
  const scope = parsed.options.get('session-scope') === true ? 'session' : 'run';
  const outcome = await sendSessionCommand({
    url,
    token,
    session,
    verb: (accepts) => (accepts.includes('control.cancel') ? 'control.cancel' : null),
    data: { scope },
    wait: 'cancelled',
    say: (line) => process.stderr.write(`${line}\n`),
  });
  (outcome.code === 0 ? process.stdout : process.stderr).write(`${outcome.message}\n`);
  if (outcome.code === 0 && scope === 'run') {
    const list = await pendingCall(url, token, 'GET', '/api/pending', session).catch(() => null);
    const line = list?.ok ? held(list.body as unknown as PendingList) : null;
    if (line) process.stdout.write(`${line}\n`);
  }
  return outcome.code;
}
