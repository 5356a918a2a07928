/**
 * The source contract of the session registry: what a source that sees agent sessions tells the
 * registry, and what a source that can act on a session offers while it holds it.
 *
 * - Every source reports what it sees with `SessionRegistry.sighted` (hooks, transcript tails,
 *   the launch host, a hub, a server); the registry keeps one identity per session id.
 * - A source that can act (launch host, hub, server) takes a session with `SessionRegistry.own`,
 *   giving an `OwnerPort`; while the port is held it alone claims the session on the relay and
 *   receives its commands, and every other source's facts reach the stream through `enrich`.
 * - An enriching source asks `SessionRegistry.owner(session)` before it emits: with an owner it
 *   hands its mapped events to `SessionRegistry.enrich` (never emits, claims or holds a reply of
 *   its own), without one it emits as before.
 * - Owners: the launch host (`launched`) and the OpenHands bridge (`server`) own what they run or
 *   follow; the Cline hub (`hub`) owns a session while it can act on it (connected, known to the
 *   hub, opted in). The hub speaks on the Cline emitter the hooks use, so its port shares their
 *   claim and keeps their turns; `SessionRegistry.ownedElsewhere` (an owner under another source
 *   URI, live or by the record after a restart) is what keeps the hooks from claiming.
 * - Sightings: `hooks` (hook-service.ts), `transcript` (transcript-feed.ts), `hub`, `server`,
 *   `launched`.
 */
import type { MappedEvent } from '../vendors/types';

/** The kinds of source that can see an agent session. */
export const SOURCE_KINDS = ['launched', 'hooks', 'hub', 'server', 'transcript'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** What a source knows about the session it reports. */
export interface SourceSighting {
  readonly session: string;
  readonly kind: SourceKind;
  /** The agent (vendor or catalogue id) as the source names it. */
  readonly agent: string;
  /** The AEP source URI this source emits the session under when it emits on its own. */
  readonly source: string;
}

/** What an owning source offers the registry while it holds a session live. */
export interface OwnerPort {
  readonly kind: SourceKind;
  readonly agent: string;
  /** The AEP source URI the session's events go out under. */
  readonly source: string;
  /** The owner's open run, which another source's run-scoped facts join (null between turns). */
  currentRun(): string | null;
  /**
   * Emits facts another source saw as the owner's own events (same session, emitter and
   * positions); the registry already dropped those the owner reports itself. Resolves after commit.
   */
  emit(events: readonly MappedEvent[]): Promise<void>;
  /** Another kind of source started seeing the session (the owner may widen what it accepts). */
  joined?(kind: SourceKind): void;
  /**
   * True for an event type the owner reports itself, so another source's unkeyed copy is dropped
   * (default `ownerOnly` in merge.ts: the session's lifecycle, turns, cards, tool calls and the
   * hook path's steering). An owner that also reports the agent's words says so here
   * (`speaksWithAgent` in merge.ts), and a transcript's copy of them is then dropped too. An owner
   * that reports no turns (false for `run.started`) takes another source's facts as they are, with
   * their own runs and subjects (the Cline hub, whose turns are the hooks').
   */
  reports?(type: string): boolean;
}
