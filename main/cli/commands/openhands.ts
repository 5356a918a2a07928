/**
 * `aep-companion openhands connect --url URL --key-file FILE [--instruct] [--data-dir DIR]`,
 * `aep-companion openhands disconnect [--data-dir DIR]`, `aep-companion openhands status`:
 * attaches the companion to an OpenHands agent server. The key is read from a 0600 file (never
 * from the command line, where other users can see it), checked against the server first, then
 * handed to the running daemon, which keeps it as `openhands-key` (0600) in its data directory;
 * with no daemon running it is written there for the next start. `--instruct` opts in to control
 * (still only while the kill switch is on). Exit 0 done, 1 refused or unreachable, 2 usage.
 */
import type { OpenHandsState } from '../../../common/openhands';
import { checkUrl, clearConnection, readKeyFile, saveConnection } from '../../core/vendors/openhands/settings';
import { probeOpenHands } from '../../core/vendors/openhands/doctor';
import { daemonUrl, helpOrRefusal, operatorToken, parseArgs, resolveDataDir } from '../locate-daemon';

const USAGE =
  'usage: aep-companion openhands connect --url URL --key-file FILE [--instruct] [--data-dir DIR]\n' +
  '       aep-companion openhands disconnect [--data-dir DIR]\n' +
  '       aep-companion openhands status [--data-dir DIR]\n';

const say = (s: OpenHandsState): string =>
  s.url === null ? 'not connected' : `${s.url}: ${s.state}${s.version ? ` (agent server ${s.version})` : ''}${s.reason ? ` — ${s.reason}` : ''}; control ${s.instruct ? 'opted in (--instruct)' : 'off'}; ${s.conversations} conversation(s) watched`;

async function callDaemon(dataDir: string, method: string, path: string, body?: unknown): Promise<OpenHandsState | null> {
  const token = operatorToken(dataDir);
  if (!token) return null;
  try {
    const res = await fetch(new URL(path, daemonUrl(dataDir)), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`the daemon answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as OpenHandsState;
  } catch (error) {
    if ((error as Error).message.startsWith('the daemon answered')) throw error;
    return null;
  }
}

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const parsed = parseArgs(rest, ['url', 'key-file', 'data-dir']);
  const known = new Set(sub === 'connect' ? ['url', 'key-file', 'instruct', 'data-dir'] : ['data-dir']);
  const refusal = helpOrRefusal('openhands', parsed, known, USAGE);
  if (refusal !== null) return refusal;
  const flag = parsed.options.get('data-dir');
  const dataDir = resolveDataDir(typeof flag === 'string' ? flag : undefined);
  try {
    if (sub === 'connect') {
      const urlFlag = parsed.options.get('url');
      const keyFile = parsed.options.get('key-file');
      if (typeof urlFlag !== 'string' || typeof keyFile !== 'string') {
        process.stderr.write(USAGE);
        return 2;
      }
      const url = checkUrl(urlFlag);
      if (!url.ok) return fail(url.error.message);
      const key = readKeyFile(keyFile);
      if (!key.ok) return fail(key.error.message);
      const conn = { url: url.value, key: key.value, instruct: parsed.options.get('instruct') === true };
      const findings = await probeOpenHands(conn);
      for (const f of findings) process.stdout.write(`${f.ok ? 'ok  ' : 'FAIL'} ${f.check}: ${f.message}\n`);
      if (!findings.every((f) => f.ok)) return fail('not connected: fix the failing check first');
      const state = await callDaemon(dataDir, 'POST', '/api/openhands/connect', conn);
      if (state === null) {
        saveConnection(dataDir, conn);
        process.stdout.write(`saved for the next daemon start (no daemon answered): ${conn.url}\n`);
        return 0;
      }
      process.stdout.write(`connected: ${say(state)}\n`);
      return 0;
    }
    if (sub === 'disconnect') {
      const state = await callDaemon(dataDir, 'POST', '/api/openhands/disconnect', {});
      if (state === null) clearConnection(dataDir);
      process.stdout.write('disconnected\n');
      return 0;
    }
    if (sub === 'status') {
      const state = await callDaemon(dataDir, 'GET', '/api/openhands');
      if (state === null) return fail(`cannot reach the daemon (${daemonUrl(dataDir)})`);
      process.stdout.write(`${say(state)}\n`);
      return state.url === null || state.state === 'connected' ? 0 : 1;
    }
  } catch (error) {
    return fail((error as Error).message);
  }
  process.stderr.write(USAGE);
  return 2;
}

function fail(message: string): number {
  process.stderr.write(`aep-companion openhands: ${message}\n`);
  return 1;
}
