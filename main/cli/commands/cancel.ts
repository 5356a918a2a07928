/**
 * `aep-companion cancel <session> [--session-scope] [--data-dir DIR]`: `control.cancel` (AEP-0004
 * §5) to a launched session: scope `run` stops the running turn (session/cancel, turn/interrupt);
 * `--session-scope` ends the session. Waits for the cause-linked `run.cancelled` (or
 * `session.ended`). Exit codes: 0 done, 3 rejected (e.g. no turn running), 4 no ack, 2 usage,
 * 1 cannot reach the daemon.
 */
import { daemonUrl, helpOrRefusal, operatorToken, parseArgs, resolveDataDir } from '../locate-daemon';
import { EXIT, sendSessionCommand } from './session-command';

const USAGE = 'usage: aep-companion cancel <session> [--session-scope] [--data-dir DIR]\n';

export async function run(args: string[]): Promise<number> {
  const parsed = parseArgs(args, ['data-dir']);
  const [session, ...extra] = parsed.positionals;
  const refusal = helpOrRefusal('cancel', { positionals: extra, options: parsed.options }, new Set(['data-dir', 'session-scope']), USAGE);
  if (refusal !== null) return refusal;
  if (!session) {
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
  const scope = parsed.options.get('session-scope') === true ? 'session' : 'run';
  const outcome = await sendSessionCommand({
    url: daemonUrl(dataDir),
    token,
    session,
    verb: (accepts) => (accepts.includes('control.cancel') ? 'control.cancel' : null),
    data: { scope },
    wait: 'cancelled',
    say: (line) => process.stderr.write(`${line}\n`),
  });
  (outcome.code === 0 ? process.stdout : process.stderr).write(`${outcome.message}\n`);
  return outcome.code;
}
