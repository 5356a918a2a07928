/**
 * Sends one command to a launched session over the AEP WebSocket with the operator token, the way
 * `instruct` does: hello as a consumer, find the session's verb in the roster, subscribe to the
 * session's events, send the command (`surface: "cli"`), then settle on its ack and, when asked,
 * on the end of the run it caused (a prompt) or the run it cancelled.
 */
import { WebSocket } from 'ws';
import { AEP_VERSION } from '../../../common/aep/envelope';
import { WAIT_EXIT, WAIT_WORD, type InputOutcome, type WaitWord } from '../../../common/agent-inputs';
import { ulid } from '../../core/aep/ulid';

/** Exit codes shared by `prompt` and `cancel`. */
export const EXIT = { ok: 0, unreachable: 1, usage: 2, rejected: 3, noAck: 4, runFailed: 5 } as const;

const ACK_WINDOW_MS = 10_000;

/** One command to send. */
export interface SessionCommand {
  readonly url: string;
  readonly token: string;
  readonly session: string;
  /** Picks the command type from the session's declared verbs (null: the session does not accept it). */
  readonly verb: (accepts: readonly string[]) => string | null;
  readonly data: Record<string, unknown>;
  readonly capture?: 'redacted';
  /**
   * After the ack, wait for the run the command started (prompt) or ended (cancel), or for the
   * input's settled outcome (`x.{agent}.input.settled`: the `--wait` word and its exit code).
   */
  readonly wait: 'none' | 'run-end' | 'cancelled' | 'settled';
  readonly say?: (line: string) => void;
  readonly ackWindowMs?: number;
}

/** How it settled. */
export interface CommandOutcome {
  readonly code: number;
  readonly message: string;
  readonly commandId: string;
}

type Frame = Record<string, unknown>;

const TERMINAL = new Set(['run.finished', 'run.failed', 'run.cancelled']);

/** Sends the command; never rejects. */
export function sendSessionCommand(req: SessionCommand): Promise<CommandOutcome> {
  const commandId = ulid();
  const say = req.say ?? (() => undefined);
  return new Promise((resolve) => {
    const socketUrl = new URL('/socket', req.url);
    socketUrl.protocol = socketUrl.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(socketUrl, { headers: req.token ? { authorization: `Bearer ${req.token}` } : {} });
    let done = false;
    let acked = false;
    let sent = false;
    let run: string | null = null;
    let settledAs: { word: WaitWord; line: string } | null = null;
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
      resolve({ code, message, commandId });
    };
    const lost = (why: string): void =>
      finish(acked ? EXIT.unreachable : sent ? EXIT.noAck : EXIT.unreachable, acked ? `accepted, but the connection was lost (${why})` : sent ? `no acknowledgement: ${why}` : `cannot reach the daemon at ${req.url}: ${why}`);
    ws.on('error', (e) => lost(e.message));
    ws.on('close', () => lost('closed by the daemon'));
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', versions: [AEP_VERSION], role: 'consumer', identity: { agent: 'aep-companion-cli' } })));
    ws.on('message', (raw) => {
      let frame: Frame;
      try {
        frame = JSON.parse(String(raw)) as Frame;
      } catch {
        return;
      }
      if (frame.type === 'hello') return ws.send(JSON.stringify({ type: 'roster', id: 'roster' }));
      if (frame.type === 'roster' && frame.id === 'roster') {
        const mine = (Array.isArray(frame.entries) ? (frame.entries as Frame[]) : []).filter((e) => e.session === req.session);
        if (mine.length === 0) return finish(EXIT.rejected, `rejected (no-route): no live session ${req.session}`);
        const accepts = mine.flatMap((e) => ((e.control as Frame | undefined)?.accepts as unknown[] | undefined) ?? []).filter((a): a is string => typeof a === 'string');
        const type = req.verb(accepts);
        if (type === null) return finish(EXIT.rejected, `rejected: session ${req.session} does not accept this command now (accepts: ${accepts.join(', ') || 'nothing'}; is steering on?)`);
        ws.send(JSON.stringify({ type: 'subscribe', id: 'outcome', filter: { session: req.session }, capture: 'redacted' }));
        pendingType = type;
        return;
      }
      if (frame.type === 'subscribed' && frame.id === 'outcome') {
        ws.send(
          JSON.stringify({
            aep: AEP_VERSION,
            id: commandId,
            type: pendingType,
            time: new Date().toISOString(),
            source: 'aep://localhost/agent/aep-companion-cli',
            agent: 'operator',
            session: req.session,
            surface: 'cli',
            ...(req.capture ? { capture: req.capture } : {}),
            data: req.data,
          }),
        );
        sent = true;
        const window = req.ackWindowMs ?? ACK_WINDOW_MS;
        timer = setTimeout(() => finish(EXIT.noAck, `no acknowledgement within ${window} ms`), window);
        say(`sent ${commandId} to session ${req.session}`);
        return;
      }
      if (frame.type === 'error') {
        if (frame.cause === commandId) return finish(EXIT.rejected, `rejected (${String(frame.code)}): ${String(frame.detail ?? '')}`.trim());
        if (frame.code === 'unauthorized') return finish(EXIT.unreachable, `refused: ${String(frame.detail ?? 'unauthorized')} (the operator token is needed)`);
        return;
      }
      if (frame.type === 'event' && typeof frame.event === 'object' && frame.event !== null) frame = frame.event as Frame;
      const data = (frame.data ?? {}) as Frame;
      if (frame.cause === commandId && frame.type === 'control.rejected') return finish(EXIT.rejected, `rejected (${String(data.reason)})${data.detail ? `: ${String(data.detail)}` : ''}`);
      if (frame.cause === commandId && frame.type === 'control.accepted') {
        acked = true;
        if (timer) clearTimeout(timer);
        if (req.wait === 'none') return finish(EXIT.ok, 'accepted');
        say(req.wait === 'run-end' ? 'accepted; waiting for the turn to end' : 'accepted; waiting for the turn to stop');
        return;
      }
      if (!acked || typeof frame.type !== 'string') return;
      if (frame.cause === commandId && typeof frame.type === 'string' && frame.type.endsWith('.input.queued')) say(`queued (position ${String(data.position)})`);
      if (frame.cause === commandId && frame.type.endsWith('.input.admitted') && data.action === 'queue') say(`queued: ${String(data.reason)}`);
      if (req.wait === 'settled' && frame.cause === commandId && frame.type.endsWith('.input.settled')) {
        const outcome = String(data.outcome) as InputOutcome;
        const word = WAIT_WORD[outcome] ?? 'errored';
        const line = `${outcome}${data.reason ? `: ${String(data.reason)}` : ''}`;
        // Sent as its own prompt: also wait for that turn, so its end is printed before the word.
        if ((outcome === 'prompted' || outcome === 'degraded') && typeof data.run === 'string') {
          settledAs = { word, line };
          run = data.run;
          return;
        }
        return finish(WAIT_EXIT[word], `${line}\n${word}`);
      }
      if (settledAs !== null && frame.run === run && TERMINAL.has(frame.type)) {
        const stop = data.stop_reason ?? data.reason ?? data.by;
        return finish(WAIT_EXIT[settledAs.word], `${settledAs.line}\n${frame.type}${stop ? ` (${String(stop)})` : ''}\n${settledAs.word}`);
      }
      if (req.wait !== 'settled' && frame.cause === commandId && frame.type.endsWith('.input.dropped')) return finish(EXIT.runFailed, `dropped (${String(data.reason)})`);
      if (frame.cause === commandId && frame.type === 'run.started' && typeof frame.run === 'string') run = frame.run;
      if (req.wait === 'cancelled' && frame.cause === commandId && TERMINAL.has(frame.type)) return finish(EXIT.ok, `${frame.type}`);
      if (req.wait === 'run-end' && run !== null && frame.run === run && TERMINAL.has(frame.type)) {
        const stop = data.stop_reason ?? data.reason ?? data.by;
        return finish(frame.type === 'run.finished' ? EXIT.ok : EXIT.runFailed, `${frame.type}${stop ? ` (${String(stop)})` : ''}`);
      }
      if (frame.type === 'session.ended' && req.wait === 'settled') {
        // The input's own outcome follows its session's end; give it a moment, then say dropped.
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => finish(WAIT_EXIT.dropped, `the session ended (${String(data.reason ?? 'unknown')})\ndropped`), 3_000);
        return;
      }
      if (frame.type === 'session.ended') return finish(EXIT.runFailed, `the session ended (${String(data.reason ?? 'unknown')})`);
    });
  });
}
