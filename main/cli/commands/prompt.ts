/**
 * `aep-companion prompt <session> "<text>" [--delivery now|queue|stop] [--wait] [--data-dir DIR]`:
 * sends the user-plane input `x.{agent}.control.send_input { text, delivery }` to a launched
 * session. `queue` (default) opens a turn when idle and queues while it generates; `now` steers the
 * running turn where the session can, else it queues and says why; `stop` cancels the running turn,
 * then sends it first. With --wait it prints the settled outcome as one word on its last line.
 * Exit codes: 0 accepted (--wait: steered), 10 deferred, 11 degraded, 12 queued (sent as the next
 * prompt), 13 errored (not re-sent), 5 dropped, 3 rejected, 4 no ack, 2 usage, 1 cannot reach the daemon.
 */
import { daemonUrl, helpOrRefusal, operatorToken, parseArgs, resolveDataDir } from '../locate-daemon';
import { DELIVERIES, isDelivery } from '../../../common/agent-inputs';
import { EXIT, sendSessionCommand } from './session-command';

const USAGE = 'usage: aep-companion prompt <session> "<text>" [--delivery now|queue|stop] [--wait] [--data-dir DIR]\n';

export async function run(args: string[]): Promise<number> {
  const parsed = parseArgs(args, ['data-dir', 'delivery']);
  const [session, text, ...extra] = parsed.positionals;
  const refusal = helpOrRefusal('prompt', { positionals: extra, options: parsed.options }, new Set(['data-dir', 'wait', 'delivery']), USAGE);
  if (refusal !== null) return refusal;
  if (!session || text === undefined || text.trim() === '') {
    process.stderr.write(USAGE);
    return EXIT.usage;
  }
  const delivery = parsed.options.get('delivery') ?? 'queue';
  if (!isDelivery(delivery)) {
    process.stderr.write(`aep-companion prompt: --delivery must be one of ${DELIVERIES.join(', ')}\n${USAGE}`);
    return EXIT.usage;
  }
  const flag = parsed.options.get('data-dir');
  const dataDir = resolveDataDir(typeof flag === 'string' ? flag : undefined);
  const token = operatorToken(dataDir);
  if (!token) {
    process.stderr.write(`aep-companion prompt: no operator token (AEP_OPERATOR_TOKEN, or ${dataDir}/operator-token)\n`);
    return EXIT.unreachable;
  }
  const outcome = await sendSessionCommand({
    url: daemonUrl(dataDir),
    token,
    session,
    verb: (accepts) => accepts.find((a) => /^x\.[a-z0-9-]+\.control\.send_input$/.test(a)) ?? null,
    data: { text, delivery },
    capture: 'redacted',
    wait: parsed.options.get('wait') === true ? 'settled' : 'none',
    say: (line) => process.stderr.write(`${line}\n`),
  });
  if (parsed.options.get('wait') === true && outcome.message.includes('\n')) {
    // --wait: what happened, then the settled outcome as one word on the last line (README: exit codes).
    process.stdout.write(`${outcome.message}\n`);
    return outcome.code;
  }
  (outcome.code === 0 ? process.stdout : process.stderr).write(`${outcome.message}\n`);
  return outcome.code;
}
