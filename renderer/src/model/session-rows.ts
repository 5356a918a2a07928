/** The sessions list as the operator reads it: state, last activity and an honest steerability. */
import type { AepEvent } from '../../../common/aep/envelope';
import type { SessionSummary } from '../../../common/sessions';
import { instructType, type VendorProfile } from '../../../common/vendors';
import type { EventLog } from './event-log';
import { isRunEnd } from './event-types';
import { sessionFacts, type SessionFacts } from './session-facts';

/** What the relay's live roster says about a session (from RosterState). */
export interface RosterView {
  readonly phase: 'unknown' | 'loaded' | 'refused';
  has(session: string): boolean;
  accepts(session: string): readonly string[];
}

/** A turn the user interrupted in the agent's own UI (read from its transcript): the agent is idle again. */
const INTERRUPTED = /^x\.[a-z0-9_-]+\.run\.interrupted$/;

/** What a session is doing, derived from its stream. */
export type SessionPhase = 'working' | 'waiting' | 'idle' | 'ended';

/** What would happen to an instruction sent now. */
export type Steerability =
  | { readonly kind: 'off' }
  | { readonly kind: 'not-opted-in' }
  | { readonly kind: 'ended' }
  | { readonly kind: 'unknown-vendor' }
  /** Opted in, but the relay holds no route to it now (released at idle expiry). */
  | { readonly kind: 'released' }
  /** The roster has not answered yet (or refused): nothing is claimed either way. */
  | { readonly kind: 'checking' }
  | { readonly kind: 'ready'; readonly moments: readonly string[]; readonly cap: number | null; readonly idle?: boolean };

/** One row of the sessions list. */
export interface SessionRow {
  readonly summary: SessionSummary;
  readonly phase: SessionPhase;
  readonly lastActivity: string;
  readonly openAttention: number;
  readonly steerability: Steerability;
  readonly facts: SessionFacts;
  readonly toolCalls: number;
}

/** Phase and open attention requests from the fleet events of one session. */
export function streamState(events: readonly AepEvent[]): { phase: SessionPhase | null; open: Set<string> } {
  let phase: SessionPhase | null = null;
  const open = new Set<string>();
  for (const e of events) {
    const t = e.type;
    if (t === 'session.ended') phase = 'ended';
    else if (phase === 'ended') continue;
    else if (t === 'session.started') phase = 'idle';
    else if (t === 'run.started') phase = 'working';
    else if (isRunEnd(t) || INTERRUPTED.test(t)) phase = 'idle';
    if (t === 'attention.requested') open.add(e.id);
    else if ((t === 'attention.answered' || t === 'attention.resolved' || t === 'attention.timeout') && e.subject) open.delete(e.subject);
  }
  return { phase, open };
}

/**
 * The steerability badge of a session. With a roster, the relay's live declaration decides:
 * the session is steerable exactly when its claimant accepts the vendor's instruct verb now.
 * Without one (tests of the older model) it falls back to the session's recorded opt-in.
 */
export function steerabilityOf(summary: SessionSummary, ended: boolean, steeringEnabled: boolean | null, vendor: VendorProfile | undefined, roster?: RosterView, idle = false): Steerability {
  if (ended) return { kind: 'ended' };
  if (!summary.vendor || !vendor) return { kind: 'unknown-vendor' };
  const ready: Steerability = { kind: 'ready', moments: vendor.deliveryMoments, cap: vendor.contextCap, idle };
  if (roster && roster.phase === 'loaded' && roster.accepts(summary.session).includes(instructType(summary.vendor))) return steeringEnabled === false ? { kind: 'off' } : ready;
  if (!steeringEnabled) return { kind: 'off' };
  if (!summary.instructOptIn) return { kind: 'not-opted-in' };
  if (!roster) return ready;
  if (roster.phase !== 'loaded') return { kind: 'checking' };
  return roster.has(summary.session) ? { kind: 'not-opted-in' } : { kind: 'released' };
}

/** Optional inputs of `sessionRows`. */
export interface SessionRowsExtras {
  readonly roster?: RosterView;
  readonly toolCalls?: (session: string) => number;
}

/** Builds the rows, newest activity first. */
export function sessionRows(
  summaries: readonly SessionSummary[],
  fleet: ReadonlyMap<string, EventLog>,
  activity: ReadonlyMap<string, string>,
  vendors: readonly VendorProfile[],
  steeringEnabled: boolean | null,
  extras: SessionRowsExtras = {},
): SessionRow[] {
  const rows = summaries.map((summary) => {
    const events = fleet.get(summary.session)?.events ?? [];
    const state = streamState(events);
    const ended = summary.state === 'ended' || state.phase === 'ended';
    const openAttention = state.open.size;
    let phase: SessionPhase;
    if (ended) phase = 'ended';
    else if (openAttention > 0) phase = 'waiting';
    else if (state.phase === 'working') phase = 'working';
    else phase = 'idle';
    const streamed = activity.get(summary.session);
    const lastActivity = streamed && streamed > summary.lastSeen ? streamed : summary.lastSeen;
    const vendor = vendors.find((v) => v.id === summary.vendor);
    const steerability = steerabilityOf(summary, ended, steeringEnabled, vendor, extras.roster, phase === 'idle');
    return { summary, phase, lastActivity, openAttention, steerability, facts: sessionFacts(events), toolCalls: extras.toolCalls?.(summary.session) ?? 0 };
  });
  return rows.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
}

/** Moments that best show "mid-turn" delivery come first in examples. */
const EXAMPLE_ORDER = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit'];

/** Up to three delivery moments to name as examples. */
export function exampleMoments(moments: readonly string[]): string[] {
  const rank = (m: string) => (EXAMPLE_ORDER.includes(m) ? EXAMPLE_ORDER.indexOf(m) : EXAMPLE_ORDER.length);
  return [...moments].sort((x, y) => rank(x) - rank(y)).slice(0, 3);
}

/** The badge text, in the operator's words. */
export function steerabilityLabel(s: Steerability): string {
  switch (s.kind) {
    case 'off':
      return 'steering is off';
    case 'not-opted-in':
      return 'not opted in: reinstall with steering';
    case 'ended':
      return 'session ended';
    case 'unknown-vendor':
      return 'not steerable here';
    case 'released':
      return 'not reachable now: released after idle';
    case 'checking':
      return 'checking the relay';
    case 'ready':
      if (s.idle) return 'next hook (the agent is idle: this reaches it when its next prompt starts)';
      return s.moments.length ? `next hook (e.g. ${exampleMoments(s.moments).join(', ')})` : 'next hook';
  }
}

/** A longer explanation for the badge's tooltip and the composer. */
export function steerabilityHelp(s: Steerability): string {
  switch (s.kind) {
    case 'off':
      return 'Steering is off (the kill switch in the header): instructions are refused until you turn it on.';
    case 'not-opted-in':
      return "This session's hooks were installed without the steering opt-in (AEP_INSTRUCT=1). Reinstall its hooks with steering (Setup) to instruct it.";
    case 'ended':
      return 'The session has ended; nothing can reach it any more.';
    case 'unknown-vendor':
      return 'This session comes from an AEP emitter the companion does not steer.';
    case 'released':
      return "The relay holds no route to this session now: its hooks went quiet past the idle expiry and it was released. It is claimed again when the agent calls its next hook; send then.";
    case 'checking':
      return 'Asking the relay which sessions can be reached right now.';
    case 'ready':
      if (s.idle) return `The agent is idle. An instruction waits in the queue and reaches it in the reply to its next eligible hook, usually when its next prompt starts (${s.moments.join(', ') || 'none listed'}).`;
      return `An instruction is queued and handed to the agent in the reply to its next eligible hook (${s.moments.join(', ') || 'none listed'}). "Delivered" means the hook reply carried it.`;
  }
}
