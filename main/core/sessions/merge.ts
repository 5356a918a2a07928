/**
 * How facts about one session from several sources merge into one stream. A fact with an identity
 * (a tool call's request or its settlement, keyed by the vendor's tool call id, which the hook
 * payload's `tool_use_id` and the ACP `toolCallId` share) goes out once, from whichever source
 * reported it first. Facts without an identity in a family the owner reports itself (the session's
 * lifecycle, turns, permission cards, the hook path's own steering) are the owner's alone; an
 * enriching source's other facts are added. A permission card is never merged: the owner raises
 * the one the operator answers (the enriching hook passes the request through, see
 * observed/hook-service.ts), so an enriching source's card would be a second, unanswerable one.
 */

/** Event types whose settlement ends a tool call. */
const TOOL_SETTLED = new Set(['tool.completed', 'tool.failed', 'tool.denied']);

/** The families whose facts only the owner reports (an enriching source's copies are dropped). */
const OWNER_FAMILIES = [/^session\./, /^run\./, /^attention\./, /^tool\./, /^x\.[a-z0-9-]+\.instruction\./, /^x\.[a-z0-9-]+\.control\./];

/** The vendor's tool call id an event names (`data.tool.call_id`), or undefined. */
export function toolCallId(data: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const tool = data?.['tool'];
  if (tool === null || typeof tool !== 'object') return undefined;
  const id = (tool as Record<string, unknown>)['call_id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The identity of a fact two sources may both report, or null for a fact without one. */
export function factKey(type: string, data: Readonly<Record<string, unknown>> | undefined): string | null {
  const id = toolCallId(data);
  if (id === undefined) return null;
  if (type === 'tool.requested') return `tool.requested ${id}`;
  if (TOOL_SETTLED.has(type)) return `tool.settled ${id}`;
  return null;
}

/** True for an event type only a session's owner reports without an identity to merge on. */
export function ownerOnly(type: string): boolean {
  return OWNER_FAMILIES.some((family) => family.test(type));
}

/**
 * The agent's own words and what its protocol tells of each turn (replies, usage, a user's
 * interrupt, an API error): an owner that speaks with the agent (ACP, the app-server) reports them
 * itself, so a transcript's copies are dropped.
 */
const AGENT_WORDS = /^(x\.[a-z0-9-]+\.(message\.replied|usage\.reported|run\.interrupted)|error\.raised)$/;

/** True for the event types an owner that speaks with the agent reports itself (`ownerOnly` and the agent's words). */
export function speaksWithAgent(type: string): boolean {
  return ownerOnly(type) || AGENT_WORDS.test(type);
}

/** Fact keys remembered per session; the oldest fall off first (a bound, not a window). */
export const MAX_FACTS_PER_SESSION = 4_096;

/** The facts of one session already on the stream. */
export class FactLedger {
  private readonly seen = new Set<string>();

  constructor(
    private readonly max = MAX_FACTS_PER_SESSION,
    /** The unkeyed event types only the owner reports (default `ownerOnly`). */
    private readonly ownerReports: (type: string) => boolean = ownerOnly,
  ) {}

  /**
   * Decides one event: true when it goes out. A keyed fact goes out the first time any source
   * reports it; an unkeyed one goes out when the owner reports it, or when an enriching source
   * reports a fact of a family the owner does not report.
   */
  admit(fromOwner: boolean, type: string, data: Readonly<Record<string, unknown>> | undefined): boolean {
    const key = factKey(type, data);
    if (key === null) return fromOwner || !this.ownerReports(type);
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > this.max) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
