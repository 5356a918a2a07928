/** The sessions list as the operator reads it: state, last activity and an honest steerability. */
import type { AepEvent } from '../../../common/aep/envelope';
import type { SessionSummary } from '../../../common/sessions';
import type { VendorProfile } from '../../../common/vendors';
import type { EventLog } from './event-log';
import { isRunEnd } from './event-types';

/** What a session is doing, derived from its stream. */
export type SessionPhase = 'working' | 'waiting' | 'idle' | 'ended';

/** What would happen to an instruction sent now. */
export type Steerability =
  | { readonly kind: 'off' }
  | { readonly kind: 'not-opted-in' }
  | { readonly kind: 'ended' }
  | { readonly kind: 'unknown-vendor' }
  | { readonly kind: 'ready'; readonly moments: readonly string[]; readonly cap: number | null };

/** One row of the sessions list. */
export interface SessionRow {
  readonly summary: SessionSummary;
  readonly phase: SessionPhase;
  readonly lastActivity: string;
  readonly openAttention: number;
  readonly steerability: Steerability;
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
    else if (isRunEnd(t)) phase = 'idle';
    if (t === 'attention.requested') open.add(e.id);
    else if ((t === 'attention.answered' || t === 'attention.resolved' || t === 'attention.timeout') && e.subject) open.delete(e.subject);
  }
  return { phase, open };
}

/** The steerability badge of a session. */
export function steerabilityOf(summary: SessionSummary, ended: boolean, steeringEnabled: boolean | null, vendor: VendorProfile | undefined): Steerability {
  if (ended) return { kind: 'ended' };
  if (!summary.vendor || !vendor) return { kind: 'unknown-vendor' };
  if (!steeringEnabled) return { kind: 'off' };
  if (!summary.instructOptIn) return { kind: 'not-opted-in' };
  return { kind: 'ready', moments: vendor.deliveryMoments, cap: vendor.contextCap };
}

/** Builds the rows, newest activity first. */
export function sessionRows(
  summaries: readonly SessionSummary[],
  fleet: ReadonlyMap<string, EventLog>,
  activity: ReadonlyMap<string, string>,
  vendors: readonly VendorProfile[],
  steeringEnabled: boolean | null,
): SessionRow[] {
  const rows = summaries.map((summary) => {
    const state = streamState(fleet.get(summary.session)?.events ?? []);
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
    return { summary, phase, lastActivity, openAttention, steerability: steerabilityOf(summary, ended, steeringEnabled, vendor) };
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
      return 'steering off';
    case 'not-opted-in':
      return 'not opted in';
    case 'ended':
      return 'session ended';
    case 'unknown-vendor':
      return 'not steerable here';
    case 'ready':
      return s.moments.length ? `delivered at the next hook (e.g. ${exampleMoments(s.moments).join(', ')})` : 'delivered at the next hook';
  }
}

/** A longer explanation for the badge's tooltip and the composer. */
export function steerabilityHelp(s: Steerability): string {
  switch (s.kind) {
    case 'off':
      return 'The steering kill switch is off: instructions are refused until you turn steering on in the header.';
    case 'not-opted-in':
      return "This session's hooks were installed without the steering opt-in (AEP_INSTRUCT=1). Reinstall its hooks with steering to instruct it.";
    case 'ended':
      return 'The session has ended; nothing can reach it any more.';
    case 'unknown-vendor':
      return 'This session comes from an AEP emitter the companion does not steer.';
    case 'ready':
      return `An instruction is queued and handed to the agent in the reply to its next eligible hook (${s.moments.join(', ') || 'none listed'}). "Delivered" means the hook reply carried it.`;
  }
}
