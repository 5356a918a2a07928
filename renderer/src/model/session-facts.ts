/**
 * What a session row says about the work: the prompt of the running turn (when captured), the
 * token usage the agent reported on its run ends, and how many tool calls it made. Prompts and
 * usage come from the fleet log (run.*); tool calls from an envelope-only count of
 * `tool.requested` (the `tools` subscription, capture `none`), deduplicated by event id.
 */
import type { AepEvent, Position } from '../../../common/aep/envelope';
import { comparePositions, eventKey, positionOf, type LogPosition } from './event-log';
import { isRunEnd } from './event-types';

/** Token usage summed over a session's reported run ends (OTel GenAI names, AEP-0002 §5.2). */
export interface Usage {
  readonly input: number;
  readonly output: number;
}

/** Facts of one session read from its fleet events. */
export interface SessionFacts {
  /** The prompt of the turn that is running now, when captured; null when idle or not captured. */
  readonly currentPrompt: string | null;
  /** True when a turn is running but its prompt was not captured. */
  readonly promptHidden: boolean;
  readonly runs: number;
  /** Null when the agent reported no usage at all. */
  readonly usage: Usage | null;
  /** The session's title: the agent's own (its transcript), else the first prompt; null when neither is known. */
  readonly title: string | null;
  /** The model the agent last reported, or null. */
  readonly model: string | null;
  /** The session's cost as the agent computed it (its running total), or null. */
  readonly cost: { readonly currency: string; readonly total: number } | null;
}

const REPLIED = /^x\.[a-z0-9_-]+\.message\.replied$/;
const USAGE_REPORTED = /^x\.[a-z0-9_-]+\.usage\.reported$/;
const TITLED = /^x\.[a-z0-9_-]+\.session\.titled$/;
const INTERRUPTED = /^x\.[a-z0-9_-]+\.run\.interrupted$/;

/** A string field of an event's data. */
const field = (e: AepEvent, key: string): string | undefined => (typeof e.data?.[key] === 'string' && e.data[key] !== '' ? (e.data[key] as string) : undefined);

function usageOf(e: AepEvent): Usage | null {
  const u = (e.data?.usage ?? e.data) as Record<string, unknown> | undefined;
  if (!u || typeof u !== 'object') return null;
  const input = u['gen_ai.usage.input_tokens'];
  const output = u['gen_ai.usage.output_tokens'];
  if (typeof input !== 'number' && typeof output !== 'number') return null;
  return { input: typeof input === 'number' ? input : 0, output: typeof output === 'number' ? output : 0 };
}

/** Reads the facts from one session's ordered fleet events. */
export function sessionFacts(events: readonly AepEvent[]): SessionFacts {
  let currentPrompt: string | null = null;
  let promptHidden = false;
  let running = false;
  let runs = 0;
  let input = 0;
  let output = 0;
  let reported = false;
  let firstPrompt: string | null = null;
  let ownTitle: string | null = null;
  let model: string | null = null;
  let cost: SessionFacts['cost'] = null;
  for (const e of events) {
    model = field(e, 'gen_ai.request.model') ?? model;
    if (e.type === 'run.started') {
      runs++;
      running = true;
      const p = e.data?.prompt;
      currentPrompt = typeof p === 'string' ? p : null;
      promptHidden = typeof p !== 'string';
      if (firstPrompt === null && typeof p === 'string' && p.trim() !== '') firstPrompt = p.trim();
    } else if (REPLIED.test(e.type) || USAGE_REPORTED.test(e.type)) {
      // A transcript's per-response usage adds up; its cost is the session's running total.
      const u = usageOf({ ...e, data: (e.data?.usage as Record<string, unknown> | undefined) ?? {} });
      if (u) {
        reported = true;
        input += u.input;
        output += u.output;
      }
      const c = e.data?.cost as { currency?: unknown; total?: unknown } | undefined;
      if (c && typeof c.currency === 'string' && typeof c.total === 'number') cost = { currency: c.currency, total: c.total };
    } else if (TITLED.test(e.type)) {
      ownTitle = field(e, 'title') ?? ownTitle;
    } else if (isRunEnd(e.type)) {
      running = false;
      const u = e.type === 'run.finished' || e.type === 'run.failed' ? usageOf(e) : null;
      if (u) {
        reported = true;
        input += u.input;
        output += u.output;
      }
    } else if (e.type === 'session.ended' || INTERRUPTED.test(e.type)) running = false;
  }
  return {
    currentPrompt: running ? currentPrompt : null,
    promptHidden: running && promptHidden,
    runs,
    usage: reported ? { input, output } : null,
    title: ownTitle ?? firstPrompt,
    model,
    cost,
  };
}

/** A cost in its currency: $0.0123 → "$0.012", 12.5 → "$12.50". */
export function formatCost(cost: { readonly currency: string; readonly total: number }): string {
  const digits = cost.total < 1 ? 3 : 2;
  const amount = cost.total.toFixed(digits);
  return cost.currency === 'USD' ? `$${amount}` : `${amount} ${cost.currency}`;
}

/** Short token display: 1,234 → "1.2k". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Tool-call counts per session, deduplicated by (source, id) so a resume never double-counts. */
export class ToolCounter {
  private readonly seen = new Map<string, Set<string>>();
  private readonly last = new Map<string, LogPosition>();
  private readonly settled = new Map<string, number>();

  /** Counts one `tool.requested`; true when it was new. */
  add(event: AepEvent): boolean {
    const session = event.session;
    if (!session || event.type !== 'tool.requested') return false;
    let ids = this.seen.get(session);
    if (!ids) {
      ids = new Set();
      this.seen.set(session, ids);
    }
    const key = eventKey(event);
    if (ids.has(key)) return false;
    ids.add(key);
    const pos = positionOf(event);
    const prev = this.last.get(session);
    if (pos && (!prev || comparePositions(pos, prev) > 0)) this.last.set(session, pos);
    return true;
  }

  /** Tool calls seen for a session. */
  count(session: string): number {
    return (this.seen.get(session)?.size ?? 0) + (this.settled.get(session) ?? 0);
  }

  /** Resume positions: exactly after the newest counted call of each session. */
  positions(): Position[] {
    return [...this.last].map(([session, p]) => ({ session, ...p }));
  }

  /** Keeps only the number of a released session (its ids go). */
  release(session: string): void {
    const ids = this.seen.get(session);
    if (!ids) return;
    this.settled.set(session, (this.settled.get(session) ?? 0) + ids.size);
    this.seen.delete(session);
  }

  /** Sessions whose ids are held. */
  get heldSessions(): number {
    return this.seen.size;
  }
}
