/**
 * The session registry (docs/ARCHITECTURE.md, one session, many sources): one identity per agent
 * session across every source that sees it, the source that owns control, and the merge of the
 * other sources' facts into the owner's stream. Ownership is written to `session_registry` before
 * anything acts on it; which owner is live is this process's knowledge (an owner that is gone after
 * a restart holds nothing live until it takes the session again).
 */
import type { Logger } from '../logger';
import type { RegistryRow, SessionRegistryRepo } from '../store/session-registry-repo';
import type { MappedEvent } from '../vendors/types';
import { FactLedger, MAX_FACTS_PER_SESSION, ownerOnly, toolCallId } from './merge';
import type { OwnerPort, SourceKind, SourceSighting } from './source';

/** Sessions whose sightings are held in memory; the least recently added fall off first. */
const MAX_REMEMBERED = 50_000;

/** How long a source of an agent being launched waits at most for the launch to name its session. */
export const LAUNCH_WAIT_MS = 10_000;

/** Heard when a session gains or loses its live owner. */
export type OwnerListener = (session: string, owner: OwnerPort | undefined) => void;

/** What the registry is built from. */
export interface SessionRegistryDeps {
  readonly repo: SessionRegistryRepo;
  readonly clock: () => number;
  readonly logger?: Logger;
  /** Calls `fire` after `ms` unless cancelled (a test seam; the daemon uses timers). */
  readonly schedule?: (ms: number, fire: () => void) => () => void;
}

interface Launching {
  readonly agent: string;
  readonly done: Promise<void>;
  settle(): void;
}

const realSchedule = (ms: number, fire: () => void): (() => void) => {
  const timer = setTimeout(fire, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

/** The registry of one daemon. */
export class SessionRegistry {
  private readonly owners = new Map<string, OwnerPort>();
  private readonly ledgers = new Map<string, FactLedger>();
  /** What each source kind saw of a session in this process (written once the session has an owner). */
  private readonly seen = new Map<string, Map<SourceKind, SourceSighting & { readonly atMs: number; written: boolean }>>();
  private readonly listeners = new Set<OwnerListener>();
  private readonly launching = new Set<Launching>();
  /** The stored owner's source per session looked up (null: none); `own` keeps it current. */
  private readonly storedSources = new Map<string, string | null>();

  constructor(private readonly deps: SessionRegistryDeps) {}

  /**
   * A source saw the session. Kept in memory, and written once the session has an owner (an
   * observed-only session costs no write on the hook path); the owner hears of a new kind of source.
   */
  sighted(s: SourceSighting): void {
    if (this.knows(s.session, s.kind)) return;
    let kinds = this.seen.get(s.session);
    const known = kinds?.get(s.kind);
    const owner = this.owners.get(s.session);
    if (kinds === undefined) {
      this.seen.set(s.session, (kinds = new Map()));
      if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
    }
    const entry = known ?? { ...s, atMs: this.deps.clock(), written: false };
    kinds.set(s.kind, entry);
    if (owner === undefined) return;
    this.deps.repo.sighted({ ...entry, nowMs: entry.atMs });
    entry.written = true;
    if (owner.kind !== s.kind) owner.joined?.(s.kind);
  }

  /** True when a sighting of this kind would tell the registry nothing new (a hot path skips building it). */
  knows(session: string, kind: SourceKind): boolean {
    const known = this.seen.get(session)?.get(kind);
    return known !== undefined && (known.written || !this.owners.has(session));
  }

  /**
   * `port` owns the session from now on (written before it returns, with the sources seen so far):
   * every other source of the session yields control to it and hands it its facts. The kinds
   * already seen are announced.
   */
  own(session: string, port: OwnerPort): void {
    const nowMs = this.deps.clock();
    for (const entry of this.seen.get(session)?.values() ?? [])
      if (!entry.written && entry.kind !== port.kind) {
        this.deps.repo.sighted({ ...entry, nowMs: entry.atMs });
        entry.written = true;
      }
    this.deps.repo.owned({ session, kind: port.kind, agent: port.agent, source: port.source, nowMs });
    this.storedSources.delete(session);
    let kinds = this.seen.get(session);
    if (kinds === undefined) this.seen.set(session, (kinds = new Map()));
    kinds.set(port.kind, { session, kind: port.kind, agent: port.agent, source: port.source, atMs: nowMs, written: true });
    this.owners.set(session, port);
    this.ledgers.set(session, new FactLedger(MAX_FACTS_PER_SESSION, port.reports?.bind(port) ?? ownerOnly));
    this.notify(session, port);
    for (const row of this.deps.repo.of(session)) if (row.kind !== port.kind) port.joined?.(row.kind as SourceKind);
  }

  /** The owner let go of the session (it ended, or its process is gone): nobody owns it live. */
  disown(session: string, port: OwnerPort): void {
    if (this.owners.get(session) !== port) return;
    this.owners.delete(session);
    this.ledgers.delete(session);
    this.notify(session, undefined);
  }

  /** The live owner of the session, or undefined. */
  owner(session: string): OwnerPort | undefined {
    return this.owners.size === 0 ? undefined : this.owners.get(session);
  }

  /** The stored owner row of the session (what survives a restart), or null. */
  storedOwner(session: string): RegistryRow | null {
    return this.deps.repo.of(session).find((r) => r.owner) ?? null;
  }

  /**
   * True when a source other than the one emitting under `source` owns control of the session:
   * live, or by the stored record when no owner is live (after a restart the launch host holds a
   * session it launched until it resumes it; the hooks of that session do not claim it meanwhile).
   */
  ownedElsewhere(session: string, source: string): boolean {
    const live = this.owners.get(session);
    if (live !== undefined) return live.source !== source;
    let stored = this.storedSources.get(session);
    if (stored === undefined) {
      stored = this.storedOwner(session)?.source ?? null;
      this.storedSources.set(session, stored);
      if (this.storedSources.size > MAX_REMEMBERED) this.storedSources.delete(this.storedSources.keys().next().value as string);
    }
    return stored !== null && stored !== source;
  }

  /** Every source of the session: those stored, then those only this process saw. */
  sources(session: string): RegistryRow[] {
    const stored = this.deps.repo.of(session);
    const unwritten = [...(this.seen.get(session)?.values() ?? [])].filter((e) => !stored.some((r) => r.kind === e.kind));
    return [...stored, ...unwritten.map((e) => ({ session, kind: e.kind, agent: e.agent, source: e.source, owner: false, firstSeenMs: e.atMs, ownedAtMs: null }))];
  }

  /** Listens to owner changes; returns the removal. */
  onOwnerChange(listener: OwnerListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Decides an event the owner itself reports: false when another source already reported the
   * same fact (the owner then drops its copy). True for a session without a live owner.
   */
  admitOwn(session: string, event: Pick<MappedEvent, 'type' | 'data'>): boolean {
    return this.ledgers.get(session)?.admit(true, event.type, event.data) ?? true;
  }

  /**
   * Hands facts another source saw to the session's live owner: those the owner reports itself are
   * dropped, the rest join the owner's open run and go out as its events. Resolves after commit;
   * false when the session has no live owner (the caller emits on its own then).
   */
  async enrich(session: string, events: readonly MappedEvent[]): Promise<boolean> {
    const owner = this.owners.get(session);
    const ledger = this.ledgers.get(session);
    if (owner === undefined || ledger === undefined) return false;
    // An owner that reports no turns of its own (the Cline hub) takes the source's turns as they are.
    const ownRuns = owner.reports?.('run.started') ?? true;
    const run = owner.currentRun() ?? undefined;
    const kept: MappedEvent[] = [];
    for (const e of events) {
      if (!ledger.admit(false, e.type, e.data)) continue;
      if (!ownRuns) {
        kept.push(e);
        continue;
      }
      const callId = e.type.startsWith('tool.') ? toolCallId(e.data) : undefined;
      kept.push({ ...e, run, ...(callId !== undefined ? { subject: callId } : {}) });
    }
    if (kept.length > 0) await owner.emit(kept);
    return true;
  }

  /**
   * A launch of `agent` is under way: until `settle` (the session is owned, or the launch failed),
   * `whenLaunched(agent)` waits, so a source that sees the new session before the launch host
   * knows its id does not speak for it first.
   */
  launch(agent: string): { settle(): void } {
    let settle: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const entry: Launching = {
      agent,
      done,
      settle: () => {
        this.launching.delete(entry);
        settle();
      },
    };
    this.launching.add(entry);
    return { settle: entry.settle };
  }

  /** Resolves once no launch of `agent` is under way (at most after LAUNCH_WAIT_MS); null when none is. */
  whenLaunched(agent: string): Promise<void> | null {
    if (this.launching.size === 0) return null;
    const pending = [...this.launching].filter((l) => l.agent === agent).map((l) => l.done);
    if (pending.length === 0) return null;
    const schedule = this.deps.schedule ?? realSchedule;
    return new Promise<void>((resolve) => {
      const cancel = schedule(LAUNCH_WAIT_MS, () => {
        this.deps.logger?.warn('a launch did not name its session in time: the source speaks for it on its own', { agent });
        resolve();
      });
      void Promise.all(pending).then(() => {
        cancel();
        resolve();
      });
    });
  }

  private notify(session: string, owner: OwnerPort | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(session, owner);
      } catch (error) {
        this.deps.logger?.error('owner listener failed', { session, error: String(error) });
      }
    }
  }
}
