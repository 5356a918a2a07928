/**
 * `aep-companion instruct <session> "<text>" [--data-dir DIR] [--wait]`: sends a steering
 * instruction over the AEP WebSocket with the operator token and settles on the stream: hello as a
 * consumer, find the session's steering verb in the roster, subscribe to events caused by the
 * command, send it (with `surface: "cli"`), then wait for the ack (and, with --wait, the outcome).
 * Exit codes: 0 accepted (with --wait: delivered), 3 rejected, 4 no ack in the window, 5 dropped
 * (with --wait), 2 usage, 1 cannot reach the daemon (or lost it before the outcome).
 */
import { WebSocket } from 'ws';
import { AEP_VERSION } from '../../../common/aep/envelope';
import { ulid } from '../../core/aep/ulid';
import { daemonUrl, operatorToken, parseArgs, resolveDataDir } from '../locate-daemon';

/** Exit codes of `instruct`. */
export const EXIT = {
  accepted: 0,
  delivered: 0,
  usage: 2,
  unreachable: 1,
  rejected: 3,
  noAck: 4,
  dropped: 5,
} as const;

/** How long to wait for the ack (the AEP-0004 default ack window). */
export const ACK_WINDOW_MS = 10_000;

/** What `instruct` needs; the command line fills it in, tests pass it directly. */
export interface InstructRequest {
  readonly url: string;
  readonly token: string;
  readonly session: string;
  readonly text: string;
  readonly wait: boolean;
  readonly ackWindowMs?: number;
  readonly say?: (line: string) => void;
}

/** The outcome of one instruct call. */
export interface InstructOutcome {
  readonly code: number;
  readonly message: string;
  readonly commandId: string | null;
}

type Frame = Record<string, unknown> & { type?: unknown };

/** Sends the instruction and resolves with the exit code; never rejects. */
export function sendInstruction(req: InstructRequest): Promise<InstructOutcome> {
  const say = req.say ?? (() => undefined);
  return new Promise((resolve) => {
    const socketUrl = new URL('/socket', req.url);
    socketUrl.protocol = socketUrl.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(socketUrl, {
      headers: req.token ? { authorization: `Bearer ${req.token}` } : {},
    });
    const commandId = ulid();
    let acked = false;
    let done = false;
    let pendingType = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (code: number, message: string): void => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      try {
        ws.close();
      } catch {
        // Already closed.
      }
      resolve({
        code,
        message,
        commandId: code === EXIT.unreachable || code === EXIT.usage ? null : commandId,
      });
    };
    const armAckTimer = (): void => {
      const window = req.ackWindowMs ?? ACK_WINDOW_MS;
      timer = setTimeout(
        () => finish(EXIT.noAck, `no acknowledgement within ${window} ms`),
        window,
      );
    };
    // Losing the connection: before the command went out the daemon was unreachable; after it, the
    // ack never came (4); after the ack, the outcome is unknown (1).
    const lost = (why: string): void => {
      if (acked)
        finish(
          EXIT.unreachable,
          `accepted, but the connection was lost before the outcome (${why})`,
        );
      else if (pendingType !== '' && timer !== undefined)
        finish(EXIT.noAck, `no acknowledgement: the connection was lost (${why})`);
      else finish(EXIT.unreachable, `cannot reach the daemon at ${req.url}: ${why}`);
    };
    ws.on('error', (e) => lost(e.message));
    ws.on('close', () => lost('closed by the daemon'));
    ws.on('open', () => {
      ws.send(
        JSON.stringify({
          type: 'hello',
          versions: [AEP_VERSION],
          role: 'consumer',
          identity: { agent: 'aep-companion-cli' },
        }),
      );
    });
    ws.on('message', (raw) => {
      let frame: Frame;
      try {
        frame = JSON.parse(String(raw)) as Frame;
      } catch {
        return;
      }
      if (frame.type === 'hello') {
        ws.send(JSON.stringify({ type: 'roster', id: 'roster' }));
        return;
      }
      if (frame.type === 'roster' && frame.id === 'roster') {
        const entries = Array.isArray(frame.entries) ? (frame.entries as Frame[]) : [];
        const mine = entries.filter((e) => e.session === req.session);
        if (mine.length === 0)
          return finish(EXIT.rejected, `rejected (no-route): no live session ${req.session}`);
        const accepts = mine.flatMap(
          (e) => ((e.control as Frame | undefined)?.accepts as unknown[] | undefined) ?? [],
        );
        const verb = accepts.find(
          (a): a is string => typeof a === 'string' && /^x\.[a-z0-9-]+\.control\.instruct$/.test(a),
        );
        const agent = typeof mine[0].agent === 'string' ? mine[0].agent : '';
        const type = verb ?? `x.${agent || 'unknown'}.control.instruct`;
        pendingType = type;
        ws.send(
          JSON.stringify({
            type: 'subscribe',
            id: 'outcome',
            filter: { cause: commandId },
            capture: 'redacted',
          }),
        );
        return;
      }
      if (frame.type === 'subscribed' && frame.id === 'outcome') {
        const command = {
          aep: AEP_VERSION,
          id: commandId,
          type: pendingType,
          time: new Date().toISOString(),
          source: 'aep://localhost/agent/aep-companion-cli',
          agent: 'operator',
          session: req.session,
          surface: 'cli',
          // The instruction text is [redacted]-class content (design record): the command says so.
          capture: 'redacted',
          data: { text: req.text },
        };
        armAckTimer();
        ws.send(JSON.stringify(command));
        say(`sent ${commandId} to session ${req.session}`);
        return;
      }
      if (frame.type === 'error') {
        if (frame.cause === commandId)
          return finish(
            EXIT.rejected,
            `rejected (${String(frame.code)}): ${String(frame.detail ?? '')}`.trim(),
          );
        if (frame.code === 'unauthorized')
          return finish(
            EXIT.unreachable,
            `refused: ${String(frame.detail ?? 'unauthorized')} (the operator token is needed)`,
          );
        return;
      }
      if (frame.type === 'event' && typeof frame.event === 'object' && frame.event !== null)
        frame = frame.event as Frame;
      if (typeof frame.type !== 'string' || frame.cause !== commandId) return;
      const data = (frame.data ?? {}) as Frame;
      if (frame.type === 'control.rejected') {
        return finish(
          EXIT.rejected,
          `rejected (${String(data.reason)})${data.detail ? `: ${String(data.detail)}` : ''}`,
        );
      }
      if (frame.type === 'control.accepted') {
        acked = true;
        if (timer) clearTimeout(timer);
        if (!req.wait) return finish(EXIT.accepted, 'accepted');
        say('accepted; waiting for delivery');
        return;
      }
      if (frame.type.endsWith('.instruction.delivered')) {
        return finish(
          EXIT.delivered,
          `delivered at ${String(data.moment ?? 'a hook')} after ${String(data.queued_ms ?? '?')} ms`,
        );
      }
      if (frame.type.endsWith('.instruction.dropped'))
        return finish(EXIT.dropped, `dropped (${String(data.reason)})`);
    });
  });
}

const USAGE = 'usage: aep-companion instruct <session> "<text>" [--data-dir DIR] [--wait]\n';

/** Runs the command line. */
export async function run(args: string[]): Promise<number> {
  const { positionals, options } = parseArgs(args, ['data-dir']);
  const [session, text] = positionals;
  if (!session || text === undefined || positionals.length > 2) {
    process.stderr.write(USAGE);
    return EXIT.usage;
  }
  const flag = options.get('data-dir');
  const dataDir = resolveDataDir(typeof flag === 'string' ? flag : undefined);
  const token = operatorToken(dataDir);
  if (!token) {
    process.stderr.write(
      `aep-companion instruct: no operator token (AEP_OPERATOR_TOKEN, or ${dataDir}/operator-token)\n`,
    );
    return EXIT.unreachable;
  }
  const outcome = await sendInstruction({
    url: daemonUrl(dataDir),
    token,
    session,
    text,
    wait: options.get('wait') === true,
    say: (line) => process.stderr.write(`${line}\n`),
  });
  (outcome.code === 0 ? process.stdout : process.stderr).write(`${outcome.message}\n`);
  return outcome.code;
}
