/**
 * The console's one store: what the stream and /api have confirmed, plus the few local facts a
 * sender owns (which commands it sent, which ack windows ran out). Views read it through
 * per-area version numbers, and notifications are batched to one per animation frame so a burst
 * of live events costs one render.
 */
import type { AepEvent, Capture, Position } from '../../../common/aep/envelope';
import type { ErrorFrame } from '../../../common/aep/frames';
import type { StatusInfo } from '../../../common/api';
import type { SessionSummary } from '../../../common/sessions';
import type { Surface } from '../../../common/audit';
import { instructType, type VendorId, type VendorProfile } from '../../../common/vendors';
import type { ApiCall } from '../api/api-client';
import { AepSocket, type SocketStatus } from '../api/aep-socket';
import { newId } from '../api/ids';
import { EventLog } from './event-log';
import { ACTIVITY_TYPE_PATTERNS, FLEET_TYPE_PATTERNS, isFleetType } from './event-types';

/** A command this window sent. */
export interface SentCommand {
  readonly id: string;
  readonly session: string;
  readonly type: string;
  readonly sentAt: string;
  readonly text?: string;
  /** Where it was sent from (audited as the command's surface). */
  readonly surface?: Surface;
  sent: boolean;
  timedOut: boolean;
  refusal?: { code: string; detail?: string };
}

/** Areas views can subscribe to. */
export type StoreArea = 'connection' | 'sessions' | 'fleet' | 'status' | 'commands' | 'detail';

const DEFAULT_ACK_WINDOW_MS = 10_000;
/** More events than this between two frames make a burst. */
const BURST_EVENTS = 200;
/** Refresh interval of the views during a burst. */
const BURST_INTERVAL_MS = 150;
const SENDER_AGENT = 'aep-companion-console';

/** Options of the store. */
export interface ConsoleStoreOptions {
  readonly baseUrl: string;
  readonly api: ApiCall;
  readonly token: () => string | null;
  /** Schedules a batched notification; defaults to requestAnimationFrame. */
  readonly schedule?: (fn: () => void) => void;
  /** Called when a new attention request arrives live (desktop notification hook). */
  readonly onAttention?: (event: AepEvent) => void;
}

/** The console store. */
export class ConsoleStore {
  readonly socket: AepSocket;
  readonly instance = newId();
  connection: SocketStatus;
  sessions: readonly SessionSummary[] = [];
  sessionsLoaded = false;
  sessionsError: string | null = null;
  vendors: readonly VendorProfile[] = [];
  status: StatusInfo | null = null;
  statusError: string | null = null;
  /** The daemon answered /api with 401/403: the token is wrong or was rotated elsewhere. */
  tokenRefused = false;
  steeringEnabled: boolean | null = null;
  /** Fleet events (state, attention, steering) per session. */
  readonly fleet = new Map<string, EventLog>();
  /** Full histories of sessions opened in the detail view. */
  readonly detail = new Map<string, EventLog>();
  /** Newest event time seen on the stream per session (any type). */
  readonly activity = new Map<string, string>();
  /** Events indexed by cause and by subject, for settlement and attention lifecycles. */
  readonly byCause = new Map<string, AepEvent[]>();
  readonly bySubject = new Map<string, AepEvent[]>();
  readonly commands = new Map<string, SentCommand>();
  /** Sessions whose full-history subscription the relay confirmed (its replay is under way). */
  readonly detailReady = new Set<string>();
  /** Replay-exhausted notices per session: the history shown starts later than asked. */
  readonly exhausted = new Map<string, { epoch: number; seq: number }>();

  private readonly versions: Record<StoreArea, number> = { connection: 0, sessions: 0, fleet: 0, status: 0, commands: 0, detail: 0 };
  private readonly dirty = new Set<StoreArea>();
  private readonly listeners = new Set<() => void>();
  private flushScheduled = false;
  private ingestedSinceFlush = 0;
  private lastFlushAt = 0;
  private connectedOnce = false;
  private fleetFromAll = true;
  private fleetAskedAll = false;
  private catchUps = 0;
  private detailSubs = new Map<string, string>();
  private sessionsTimer: ReturnType<typeof setTimeout> | null = null;
  private activityTimer: ReturnType<typeof setTimeout> | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private readonly schedule: (fn: () => void) => void;
  private ackWindowMs = DEFAULT_ACK_WINDOW_MS;

  constructor(private readonly options: ConsoleStoreOptions) {
    this.schedule = options.schedule ?? ((fn) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => fn()) : setTimeout(fn, 16)));
    this.socket = new AepSocket({
      baseUrl: options.baseUrl,
      token: options.token,
      instance: this.instance,
      handlers: {
        event: (e) => this.ingest(e),
        status: (s) => this.onStatus(s),
        commandError: (f) => this.onCommandError(f),
        subscribeError: (id, f) => this.onSubscribeError(id, f),
        subscribed: (id) => {
          for (const [session, sub] of this.detailSubs) {
            if (sub === id) {
              this.detailReady.add(session);
              this.touch('detail');
            }
          }
        },
        replayExhausted: (f) => {
          this.exhausted.set(f.session, f.earliest);
          this.touch('detail');
        },
        hello: (h) => {
          const window = h.capabilities?.control?.ack_window_ms;
          if (typeof window === 'number' && window > 0) this.ackWindowMs = window;
        },
      },
    });
    this.connection = this.socket.current();
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
    // Activity is a timestamp per session: live only, never stored, so nothing to resume.
    this.socket.subscribe('activity', { filter: { type: [...ACTIVITY_TYPE_PATTERNS] }, from: () => undefined });
    this.socket.start();
    void this.refreshVendors();
    void this.refreshSessions();
    void this.refreshStatus();
    this.pollTimer = setInterval(() => {
      void this.refreshStatus();
      void this.refreshSessions();
    }, 4_000);
  }

  /** Stops everything (window unload, tests). */
  stop(): void {
    this.socket.stop();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.sessionsTimer) clearTimeout(this.sessionsTimer);
    if (this.activityTimer) clearTimeout(this.activityTimer);
  }

  /** Subscribes to the views' change notifications. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Version of one area; changes whenever that area changes. */
  version(area: StoreArea): number {
    return this.versions[area];
  }

  // ---- stream ---------------------------------------------------------------------------

  /** Admits one event from the socket into the logs it belongs to. */
  ingest(event: AepEvent): void {
    this.ingestedSinceFlush++;
    const session = event.session;
    if (!session) return;
    const time = event.time;
    const prev = this.activity.get(session);
    if (!prev || time > prev) {
      this.activity.set(session, time);
      this.touch('sessions');
    }
    // Counts and "last hook" live in /api: refresh them soon after activity, not per event.
    this.refreshSoon();
    if (isFleetType(event.type)) {
      let log = this.fleet.get(session);
      if (!log) {
        log = new EventLog();
        this.fleet.set(session, log);
      }
      if (log.add(event)) {
        this.index(event);
        this.touch('fleet');
        if (!this.sessions.some((s) => s.session === session) || event.type.startsWith('session.') || event.type.startsWith('attention.')) {
          this.refreshSessionsSoon();
        }
        if (event.type === 'attention.requested') this.options.onAttention?.(event);
      }
    }
    const detail = this.detail.get(session);
    if (detail && detail.add(event)) this.touch('detail');
  }

  private index(event: AepEvent): void {
    if (event.cause) push(this.byCause, event.cause, event);
    if (event.subject && event.type.startsWith('attention.') && event.type !== 'attention.requested') push(this.bySubject, event.subject, event);
  }

  /**
   * Resume positions for the fleet subscription: exactly after what each fleet log holds, and
   * from the very start (epoch 0, seq 0: seqs start at 1) for sessions /api listed that the
   * stream has not shown us yet, so a session born while disconnected arrives whole.
   */
  private fleetPositions(): Position[] {
    const positions: Position[] = [];
    for (const [session, log] of this.fleet) if (log.last) positions.push({ session, ...log.last });
    for (const s of this.sessions) if (!this.fleet.get(s.session)?.last) positions.push({ session: s.session, epoch: 0, seq: 0 });
    return positions;
  }

  private onStatus(status: SocketStatus): void {
    const wasOpen = this.connection.phase === 'open';
    this.connection = status;
    this.touch('connection');
    if (status.phase === 'open') {
      if (this.connectedOnce && !wasOpen) {
        // Back after a loss: refresh what /api knows, and catch up sessions born meanwhile.
        void this.refreshStatus();
        void this.refreshSessions().then(() => this.catchUpUnknownSessions());
      }
      this.connectedOnce = true;
    }
  }

  private catchUpUnknownSessions(): void {
    const unknown = this.sessions.map((s) => s.session).filter((s) => !this.fleet.has(s));
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

  // ---- session detail ---------------------------------------------------------------------

  /** Opens (or resumes) the full-history subscription of one session. */
  openSession(session: string): EventLog {
    let log = this.detail.get(session);
    if (!log) {
      // Not seeded from the fleet log: the replay arrives in order, and appending in order is
      // what keeps a 10,000-event history cheap to load.
      log = new EventLog();
      this.detail.set(session, log);
    }
    if (!this.detailSubs.has(session)) {
      const id = `session-${newId()}`;
      this.detailSubs.set(session, id);
      const held = log;
      this.socket.subscribe(id, {
        filter: { session },
        // The whole retained history first (seqs start at 1), then exactly after what we hold.
        from: () => [{ session, ...(held.last ?? { epoch: 0, seq: 0 }) }],
      });
    }
    this.touch('detail');
    return log;
  }

  /** Stops live updates of a session's full history (the log stays for a quick return). */
  closeSession(session: string): void {
    const id = this.detailSubs.get(session);
    if (!id) return;
    this.detailSubs.delete(session);
    this.detailReady.delete(session);
    this.socket.unsubscribe(id);
    // Keep at most a few histories in memory.
    if (this.detail.size > 4) {
      for (const key of this.detail.keys()) {
        if (key !== session && !this.detailSubs.has(key)) {
          this.detail.delete(key);
          break;
        }
      }
    }
  }

  // ---- commands -----------------------------------------------------------------------------

  /** Sends an instruction to a session; its fate is settled by the stream. */
  sendInstruction(session: string, vendor: VendorId, text: string, surface: Surface = 'console'): SentCommand {
    // The text is redacted-class content (design record): the command declares that capture.
    return this.sendCommand({ type: instructType(vendor), session, capture: 'redacted', data: { text }, surface }, text);
  }

  /** Answers an attention request (AEP-0004 §5, AEP-0006, AEP-0008). */
  respondAttention(request: AepEvent, answer: { option?: string; text?: string; values?: Record<string, unknown> }): SentCommand {
    // A typed reply or form values are operator-authored content (AEP-0002 §5.3): redacted class.
    const capture = answer.text !== undefined || answer.values !== undefined ? 'redacted' : undefined;
    return this.sendCommand({ type: 'control.attention.respond', session: request.session!, subject: request.id, cause: request.id, capture, data: { answer } });
  }

  private sendCommand(partial: { type: string; session: string; subject?: string; cause?: string; capture?: Capture; data: Record<string, unknown>; surface?: Surface }, text?: string): SentCommand {
    const id = newId();
    const event: AepEvent = {
      aep: '0.1',
      id,
      type: partial.type,
      time: new Date().toISOString(),
      source: `urn:aep-companion:console:${this.instance}`,
      agent: SENDER_AGENT,
      session: partial.session,
      ...(partial.subject ? { subject: partial.subject } : {}),
      ...(partial.cause ? { cause: partial.cause } : {}),
      ...(partial.capture ? { capture: partial.capture } : {}),
      data: partial.data,
      surface: partial.surface ?? 'console',
    };
    const command: SentCommand = { id, session: partial.session, type: partial.type, sentAt: event.time, text, surface: event.surface as Surface, sent: false, timedOut: false };
    command.sent = this.socket.send(event);
    this.commands.set(id, command);
    if (command.sent) {
      setTimeout(() => {
        if (!(this.byCause.get(id) ?? []).some((e) => e.type === 'control.accepted' || e.type === 'control.rejected') && !command.refusal) {
          command.timedOut = true;
          this.touch('commands');
        }
      }, this.ackWindowMs);
    }
    this.touch('commands');
    return command;
  }

  private onCommandError(frame: ErrorFrame): void {
    const key = frame.cause ?? frame.id;
    const command = key ? this.commands.get(key) : undefined;
    if (!command) return;
    command.refusal = { code: frame.code, detail: frame.detail };
    this.touch('commands');
  }

  /** Events caused by a command (acks and outcomes). */
  caused(id: string): readonly AepEvent[] {
    return this.byCause.get(id) ?? [];
  }

  // ---- /api ---------------------------------------------------------------------------------

  /** Reloads the session list. */
  async refreshSessions(): Promise<void> {
    const r = await this.options.api('GET /api/sessions', undefined);
    if (r.ok) {
      this.sessions = r.value;
      this.sessionsLoaded = true;
      this.sessionsError = null;
    } else {
      this.sessionsError = r.error.message;
    }
    this.touch('sessions');
  }

  private refreshSessionsSoon(): void {
    if (this.sessionsTimer) return;
    this.sessionsTimer = setTimeout(() => {
      this.sessionsTimer = null;
      void this.refreshSessions();
    }, 250);
  }

  private refreshSoon(): void {
    if (this.activityTimer) return;
    this.activityTimer = setTimeout(() => {
      this.activityTimer = null;
      void this.refreshSessions();
      void this.refreshStatus();
    }, 1_000);
  }

  /** Reloads the vendor profiles (steerability facts). */
  async refreshVendors(): Promise<void> {
    const r = await this.options.api('GET /api/vendors', undefined);
    if (r.ok) {
      this.vendors = r.value;
      this.touch('sessions');
    }
  }

  /** Reloads daemon status: counts, last hooks, the kill switch. */
  async refreshStatus(): Promise<void> {
    const r = await this.options.api('GET /api/status', undefined);
    if (r.ok) {
      this.status = r.value;
      this.statusError = null;
      this.steeringEnabled = r.value.steeringEnabled;
    } else {
      this.statusError = r.error.message;
    }
    const refused = !r.ok && r.error.code === 'unauthorized';
    if (refused !== this.tokenRefused) {
      this.tokenRefused = refused;
      this.touch('connection');
    }
    this.touch('status');
    this.touch('sessions');
  }

  /** Flips the kill switch; the shown state is the daemon's answer, never the request. */
  async setSteering(enabled: boolean): Promise<string | null> {
    const r = await this.options.api('PUT /api/steering', { enabled, surface: 'console' });
    if (!r.ok) return r.error.message;
    this.steeringEnabled = r.value.enabled;
    this.touch('status');
    this.touch('sessions');
    void this.refreshStatus();
    return null;
  }

  // ---- notifications ------------------------------------------------------------------------

  /** Marks an area changed; listeners run once on the next frame. */
  touch(area: StoreArea): void {
    this.dirty.add(area);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.schedule(() => this.flush());
  }

  /**
   * Runs pending notifications. During a burst (a replay of thousands of events) views refresh
   * every BURST_INTERVAL_MS instead of every frame: the frame budget goes to taking events in,
   * and nobody reads 60 intermediate timelines a second.
   */
  flush(): void {
    this.flushScheduled = false;
    const now = typeof performance !== 'undefined' ? performance.now() : Date.now();
    if (this.ingestedSinceFlush > BURST_EVENTS && now - this.lastFlushAt < BURST_INTERVAL_MS) {
      this.flushScheduled = true;
      this.schedule(() => this.flush());
      return;
    }
    this.lastFlushAt = now;
    this.ingestedSinceFlush = 0;
    for (const area of this.dirty) this.versions[area]++;
    this.dirty.clear();
    for (const l of [...this.listeners]) l();
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
