/**
 * The console's one store: what the stream and /api have confirmed, plus the few local facts a
 * sender owns (which commands it sent, which ack windows ran out). The /api side lives in
 * `store-api.ts`, notifications in `store-notifier.ts`, commands in `command-sender.ts`, the
 * roster in `roster.ts`, the detail view's full histories in `session-details.ts`; this file owns
 * the stream subscriptions and the per-session fleet logs, and releases what ended sessions hold
 * so a long-running window stays bounded.
 */
import type { AepEvent, Position } from '../../../common/aep/envelope';
import type { ErrorFrame, RosterFrame } from '../../../common/aep/frames';
import type { Surface } from '../../../common/audit';
import { instructType, type VendorId } from '../../../common/vendors';
import type { ApiCall } from '../api/api-client';
import { AepSocket, type SocketStatus } from '../api/aep-socket';
import { newId } from '../api/ids';
import { CommandSender, type CommandDraft, type SentCommand } from './command-sender';
import { EventLog, type LogPosition } from './event-log';
import { ACTIVITY_TYPE_PATTERNS, FLEET_TYPE_PATTERNS, isFleetType } from './event-types';
import { RosterState } from './roster';
import { sessionRows, type SessionRow } from './session-rows';
import type { SessionSummary } from '../../../common/sessions';
import { ToolCounter } from './session-facts';
import { ApiStore } from './store-api';
import type { Schedule } from './store-notifier';
import { LiveStream } from './live-stream';
import { SessionDetails } from './session-details';

export type { SentCommand } from './command-sender';
export type { StoreArea } from './store-notifier';

/** Ended sessions whose fleet logs stay in memory (the newest ones); older ones are released. */
export const KEEP_ENDED_SESSIONS = 50;

/** Options of the store. */
export interface ConsoleStoreOptions {
  readonly baseUrl: string;
  readonly api: ApiCall;
  readonly token: () => string | null;
  /** Schedules a batched notification; defaults to requestAnimationFrame. */
  readonly schedule?: Schedule;
  /** Called when a new attention request arrives live (desktop notification hook). */
  readonly onAttention?: (event: AepEvent) => void;
  /** Injected for tests; defaults to the browser's WebSocket. */
  readonly createSocket?: (url: string) => WebSocket;
  /** Ended sessions kept in memory (default KEEP_ENDED_SESSIONS). */
  readonly keepEnded?: number;
}

/** The console store. */
/** A launched session's pushed state. */
const SESSION_STATE = /^x\.[a-z0-9-]+\.session\.state$/;

export class ConsoleStore extends ApiStore {
  readonly socket: AepSocket;
  /** A second consumer connection carrying only the envelope-only tool-call count. */
  readonly toolSocket: AepSocket;
  readonly instance = newId();
  connection: SocketStatus;
  /** Fleet events (state, attention, steering) per session. */
  readonly fleet = new Map<string, EventLog>();
  /** Newest event time seen on the stream per session (any type). */
  readonly activity = new Map<string, string>();
  /** Events indexed by cause and by subject, for settlement and attention lifecycles. */
  readonly byCause = new Map<string, AepEvent[]>();
  readonly bySubject = new Map<string, AepEvent[]>();
  /** Ended sessions whose logs were released, with the position to resume after. */
  readonly released = new Map<string, LogPosition | null>();
  readonly tools = new ToolCounter();
  readonly roster: RosterState;
  /** The "all sessions" live stream (subscribed only while its view is open). */
  readonly stream: LiveStream;
  private readonly sender: CommandSender;
  private connectedOnce = false;
  private fleetFromAll = true;
  private fleetAskedAll = false;
  private toolsFromAll = true;
  private catchUps = 0;
  private readonly details: SessionDetails;

  constructor(private readonly options: ConsoleStoreOptions) {
    super(options.api, options.schedule);
    this.details = new SessionDetails({ api: options.api, socket: () => this.socket, changed: () => this.touch('detail') });
    this.sender = new CommandSender({ instance: this.instance, send: (e) => this.socket.send(e), caused: (id) => this.caused(id), changed: () => this.touch('commands') });
    this.socket = new AepSocket({
      baseUrl: options.baseUrl,
      token: options.token,
      instance: this.instance,
      createSocket: options.createSocket,
      handlers: {
        event: (e) => this.ingest(e),
        status: (s) => this.onStatus(s),
        commandError: (f) => (f.id && this.roster.owns(f.id) ? this.roster.onError(f) : this.sender.onError(f)),
        subscribeError: (id, f) => this.onSubscribeError(id, f),
        subscribed: (id) => this.details.subscribed(id),
        replayExhausted: (f) => this.details.replayExhausted(f.session, f.earliest),
        hello: (h) => {
          const window = h.capabilities?.control?.ack_window_ms;
          if (typeof window === 'number' && window > 0) this.sender.ackWindowMs = window;
          this.roster.ask();
        },
        roster: (f: RosterFrame) => this.roster.onFrame(f),
      },
    });
    this.toolSocket = new AepSocket({
      baseUrl: options.baseUrl,
      token: options.token,
      instance: `${this.instance}-tools`,
      createSocket: options.createSocket,
      handlers: {
        event: (e) => {
          if (this.tools.add(e)) this.touch('sessions');
        },
        status: () => {},
      },
    });
    this.roster = new RosterState((id) => this.socket.askRoster(id), () => this.touch('sessions'));
    this.stream = new LiveStream(this.socket, () => this.touch('stream'));
    this.connection = this.socket.current();
  }

  /** Full histories of sessions opened in the detail view. */
  get detail(): ReadonlyMap<string, EventLog> {
    return this.details.logs;
  }

  /** Sessions whose full-history subscription the relay confirmed (its replay is under way). */
  get detailReady(): ReadonlySet<string> {
    return this.details.ready;
  }

  /** Whether a session's held history is still being read (the count shown is not final). */
  detailLoading(session: string): boolean {
    return this.details.isLoading(session);
  }

  /** Replay-exhausted notices per session: the history shown starts later than asked. */
  get exhausted(): ReadonlyMap<string, { epoch: number; seq: number }> {
    return this.details.exhausted;
  }

  /** Commands this window sent. */
  get commands(): ReadonlyMap<string, SentCommand> {
    return this.sender.commands;
  }

  /** Starts the socket, the subscriptions and the /api polling. */
  start(): void {
    this.socket.subscribe('fleet', {
      filter: { type: [...FLEET_TYPE_PATTERNS] },
      from: () => {
        // Cold start asks for everything held (replay-all); every later (re)subscribe resumes
        // exactly after the positions the fleet logs hold.
        if (this.fleetFromAll) {
          this.fleetFromAll = false;
          this.fleetAskedAll = true;
          return 'all';
        }
        this.fleetAskedAll = false;
        return this.fleetPositions();
      },
    });
    // Tool calls are counted from envelopes only (no arguments or results cross for the count),
    // on a connection of their own so an envelope never stands in for the full event elsewhere.
    this.toolSocket.subscribe('tools', {
      filter: { type: ['tool.requested'] },
      capture: 'none',
      from: () => {
        if (this.toolsFromAll) {
          this.toolsFromAll = false;
          return 'all';
        }
        return this.tools.positions();
      },
    });
    this.toolSocket.start();
    // Activity is a timestamp per session: live only, never stored, so nothing to resume.
    this.socket.subscribe('activity', { filter: { type: [...ACTIVITY_TYPE_PATTERNS] }, from: () => undefined });
    this.socket.start();
    this.startPolling(() => this.roster.ask());
  }

  /** Stops everything (window unload, tests). */
  stop(): void {
    this.socket.stop();
    this.toolSocket.stop();
    this.stopPolling();
    this.roster.stop();
  }

  // ---- stream ---------------------------------------------------------------------------

  /** Admits one event from the socket into the logs it belongs to. */
  ingest(event: AepEvent): void {
    this.ingestedSinceFlush++;
    const session = event.session;
    if (!session) return;
    this.stream.add(event);
    if (event.type === 'tool.requested' && this.tools.add(event)) this.touch('sessions');
    const time = event.time;
    const prev = this.activity.get(session);
    if (!prev || time > prev) {
      this.activity.set(session, time);
      this.touch('sessions');
    }
    // Counts and "last hook" live in /api: refresh them soon after activity, not per event.
    this.refreshSoon();
    if (isFleetType(event.type)) this.ingestFleet(session, event);
    if (SESSION_STATE.test(event.type)) this.applySessionState(event);
    this.details.admit(session, event);
  }

  private ingestFleet(session: string, event: AepEvent): void {
    let log = this.fleet.get(session);
    if (!log) {
      log = new EventLog();
      this.fleet.set(session, log);
      this.released.delete(session);
    }
    if (!log.add(event)) return;
    this.index(event);
    this.touch('fleet');
    if (!this.sessions.some((s) => s.session === session) || event.type.startsWith('session.') || event.type.startsWith('attention.')) {
      this.refreshSessionsSoon();
    }
    if (event.type.startsWith('session.')) this.roster.askSoon();
    if (event.type === 'attention.requested') {
      // The permission hold may have changed since the last poll: the countdown needs it now.
      this.refreshSettingsSoon();
      this.options.onAttention?.(event);
    }
  }

  private index(event: AepEvent): void {
    if (event.cause) push(this.byCause, event.cause, event);
    if (event.subject && event.type.startsWith('attention.') && event.type !== 'attention.requested') push(this.bySubject, event.subject, event);
  }

  /**
   * Resume positions for the fleet subscription: exactly after what each fleet log holds (or
   * held, for released sessions), and from the very start (epoch 0, seq 0: seqs start at 1) for
   * sessions /api listed that the stream has not shown us yet, so a session born while
   * disconnected arrives whole.
   */
  private fleetPositions(): Position[] {
    const positions: Position[] = [];
    for (const [session, log] of this.fleet) if (log.last) positions.push({ session, ...log.last });
    for (const [session, last] of this.released) if (last) positions.push({ session, ...last });
    for (const s of this.sessions) if (!this.fleet.get(s.session)?.last && !this.released.has(s.session)) positions.push({ session: s.session, epoch: 0, seq: 0 });
    return positions;
  }

  private onStatus(status: SocketStatus): void {
    const wasOpen = this.connection.phase === 'open';
    this.connection = status;
    this.touch('connection');
    if (status.phase === 'open') {
      // The status counts this console's own subscription once its socket is open.
      if (!wasOpen) void this.refreshStatus();
      if (this.connectedOnce && !wasOpen) {
        // Back after a loss: refresh what /api knows, and catch up sessions born meanwhile.
        void this.refreshSessions().then(() => this.catchUpUnknownSessions());
      }
      this.connectedOnce = true;
    } else this.roster.disconnected();
  }

  private catchUpUnknownSessions(): void {
    const unknown = this.sessions.map((s) => s.session).filter((s) => !this.fleet.has(s) && !this.released.has(s));
    if (unknown.length === 0) return;
    const id = `catch-up-${++this.catchUps}`;
    this.socket.subscribe(id, {
      filter: { type: [...FLEET_TYPE_PATTERNS], session: unknown },
      from: () => unknown.map((session) => ({ session, ...(this.fleet.get(session)?.last ?? { epoch: 0, seq: 0 }) })),
    });
  }

  private onSubscribeError(id: string, frame: ErrorFrame): void {
    // A relay without replay-all refuses `from: "all"` (AEP-0003 §5): fall back to live only.
    if (id === 'fleet' && this.fleetAskedAll) {
      this.fleetAskedAll = false;
      this.socket.subscribe('fleet', { filter: { type: [...FLEET_TYPE_PATTERNS] }, from: () => this.fleetPositions() });
    }
    this.statusError = `subscription ${id} refused: ${frame.code}${frame.detail ? ` (${frame.detail})` : ''}`;
    this.touch('status');
  }

  // ---- retention ----------------------------------------------------------------------------

  protected override sessionsRefreshed(): void {
    this.releaseEnded();
  }

  protected override steeringChanged(): void {
    this.roster.askSoon();
  }

  /**
   * Releases what ended sessions hold beyond the newest `keepEnded`: their fleet logs, indexes,
   * activity time, tool-call ids and commands. Only the resume position (and the tool-call
   * count) stays, so a reconnect never replays them and their rows still read right.
   */
  releaseEnded(): number {
    const keep = this.options.keepEnded ?? KEEP_ENDED_SESSIONS;
    const ended = this.sessions.filter((s) => s.state === 'ended' && this.fleet.has(s.session) && !this.details.isOpen(s.session));
    if (ended.length <= keep) return 0;
    const oldestFirst = [...ended].sort((a, b) => (a.lastSeen < b.lastSeen ? -1 : a.lastSeen > b.lastSeen ? 1 : 0));
    const release = oldestFirst.slice(0, ended.length - keep);
    for (const s of release) this.release(s.session);
    this.touch('fleet');
    this.touch('sessions');
    return release.length;
  }

  private release(session: string): void {
    const log = this.fleet.get(session);
    if (!log) return;
    for (const e of log.events) {
      if (e.cause) this.byCause.delete(e.cause);
      if (e.subject) this.bySubject.delete(e.subject);
      this.byCause.delete(e.id);
      this.bySubject.delete(e.id);
    }
    this.released.set(session, log.last);
    this.fleet.delete(session);
    this.activity.delete(session);
    this.details.forget(session);
    this.tools.release(session);
    this.sender.forgetSession(session);
  }

  // ---- session detail ---------------------------------------------------------------------

  /** Opens (or resumes) the full-history subscription of one session. */
  openSession(session: string): EventLog {
    return this.details.open(session);
  }

  /** Stops live updates of a session's full history (the log stays for a quick return). */
  closeSession(session: string): void {
    this.details.close(session);
  }

  // ---- commands -----------------------------------------------------------------------------

  /** Sends an instruction to a session; its fate is settled by the stream. */
  sendInstruction(session: string, vendor: VendorId, text: string, surface: Surface = 'console'): SentCommand {
    // The text is redacted-class content (design record): the command declares that capture.
    return this.sender.send({ type: instructType(vendor), session, capture: 'redacted', data: { text }, surface }, text);
  }

  /** Answers an attention request (AEP-0004 §5, AEP-0006, AEP-0008). */
  respondAttention(request: AepEvent, answer: { option?: string; text?: string; values?: Record<string, unknown> }): SentCommand {
    // A typed reply or form values are operator-authored content (AEP-0002 §5.3): redacted class.
    const capture = answer.text !== undefined || answer.values !== undefined ? 'redacted' : undefined;
    return this.sender.send({ type: 'control.attention.respond', session: request.session!, subject: request.id, cause: request.id, capture, data: { answer } });
  }

  /** Sends any other command (launched-session input, cancel); settled by the stream. */
  sendCommand(draft: CommandDraft, text?: string): SentCommand {
    return this.sender.send(draft, text);
  }

  /** The rows of these sessions (all by default), with roster steerability and tool counts. */
  rowsOf(summaries: readonly SessionSummary[] = this.sessions): SessionRow[] {
    return sessionRows(summaries, this.fleet, this.activity, this.vendors, this.steeringEnabled, { roster: this.roster, toolCalls: (s) => this.tools.count(s) });
  }

  /** Events caused by a command (acks and outcomes). */
  caused(id: string): readonly AepEvent[] {
    return this.byCause.get(id) ?? [];
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
