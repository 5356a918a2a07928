/** Attention requests across sessions with their lifecycle state (AEP-0002 §7). */
import type { AepEvent } from '../../../common/aep/envelope';
import type { EventLog } from './event-log';

/** Where one request stands. */
export type AttentionState = 'open' | 'answered' | 'resolved' | 'timeout';

/** One option of a closed-choice request. */
export interface AttentionOption {
  readonly id: string;
  readonly label: string;
}

/** One field of a form request (AEP-0006 field_spec). */
export interface FieldSpec {
  readonly id: string;
  readonly type: 'string' | 'number' | 'boolean' | 'select';
  readonly label: string;
  readonly required?: boolean;
  readonly multi?: boolean;
  readonly other?: boolean;
  readonly choices?: readonly AttentionOption[];
  readonly min?: number;
  readonly max?: number;
}

/** A request with its lifecycle. */
export interface AttentionItem {
  readonly request: AepEvent;
  readonly kind: string;
  readonly prompt: string;
  readonly options: readonly AttentionOption[];
  readonly fields: readonly FieldSpec[];
  /** False when respond_via is declared without `control` (AEP-0008): informational only. */
  readonly answerable: boolean;
  readonly expiresAt: string | null;
  readonly state: AttentionState;
  /** The answer as recorded on attention.answered. */
  readonly answer: { option?: string; text?: string; values?: Record<string, unknown> } | null;
  readonly closedAt: string | null;
  /** How it ended (or that it waits), shared with the timeline. */
  readonly outcome: AttentionOutcome;
}

/** How a request ended, in the words both the inbox and the timeline use. */
export interface AttentionOutcome {
  readonly state: AttentionState;
  readonly tone: 'ok' | 'warn' | 'bad' | 'neutral';
  readonly label: string;
  readonly answer: AttentionItem['answer'];
  readonly closedAt: string | null;
}

const PERMISSIVE = /^(allow|approve|yes|accept|ok)/i;

/**
 * Settles one request from its lifecycle events (attention.answered / resolved / timeout, any
 * order): a timeout is terminal; an answer wins over a later resolution; a resolution without an
 * answer says its own word ("dismissed" when a new prompt or the agent's own UI closed it).
 */
export function attentionOutcome(lifecycle: readonly AepEvent[]): AttentionOutcome {
  let state: AttentionState = 'open';
  let answer: AttentionItem['answer'] = null;
  let closedAt: string | null = null;
  let resolution: string | null = null;
  for (const e of lifecycle) {
    if (e.type === 'attention.timeout') {
      state = 'timeout';
      closedAt = e.time;
    } else if (e.type === 'attention.answered') {
      if (state === 'open' || state === 'resolved') state = 'answered';
      answer = (e.data?.answer as AttentionItem['answer']) ?? null;
      closedAt ??= e.time;
    } else if (e.type === 'attention.resolved' && state !== 'timeout') {
      if (state === 'open') state = 'resolved';
      resolution = typeof e.data?.resolution === 'string' ? e.data.resolution : 'closed';
      closedAt ??= e.time;
    }
  }
  if (state === 'open') return { state, tone: 'warn', label: 'waiting for an answer', answer, closedAt };
  if (state === 'timeout') return { state, tone: 'bad', label: 'timed out', answer, closedAt };
  if (state === 'answered') {
    const what = answer?.option ? `: ${answer.option}` : answer?.text !== undefined ? ': text reply' : answer?.values ? ': form' : '';
    return { state, tone: answer?.option && !PERMISSIVE.test(answer.option) ? 'neutral' : 'ok', label: `answered${what}`, answer, closedAt };
  }
  if (resolution === 'answered') return { state, tone: 'ok', label: 'answered in the agent', answer, closedAt };
  return { state, tone: 'neutral', label: resolution ?? 'closed', answer, closedAt };
}

/** Reads the request payload defensively: the stream is producer-controlled input. */
export function describeRequest(request: AepEvent): Pick<AttentionItem, 'kind' | 'prompt' | 'options' | 'fields' | 'answerable' | 'expiresAt'> {
  const d = request.data ?? {};
  const options = Array.isArray(d.options)
    ? (d.options as unknown[]).flatMap((o) => {
        const opt = o as { id?: unknown; label?: unknown };
        return typeof opt?.id === 'string' ? [{ id: opt.id, label: typeof opt.label === 'string' ? opt.label : opt.id }] : [];
      })
    : [];
  const fields = Array.isArray(d.fields) ? (d.fields as FieldSpec[]).filter((f) => f && typeof f.id === 'string' && typeof f.type === 'string') : [];
  const respondVia = Array.isArray(d.respond_via) ? (d.respond_via as unknown[]) : null;
  return {
    kind: typeof d.kind === 'string' ? d.kind : 'other',
    prompt: typeof d.prompt === 'string' ? d.prompt : `${request.agent} needs attention`,
    options,
    fields,
    answerable: respondVia === null || respondVia.includes('control'),
    expiresAt: typeof d.expires_at === 'string' ? d.expires_at : null,
  };
}

/** Builds the inbox: open requests oldest first, then closed ones newest first. */
export function attentionItems(fleet: ReadonlyMap<string, EventLog>, bySubject: ReadonlyMap<string, readonly AepEvent[]>): { open: AttentionItem[]; closed: AttentionItem[] } {
  const open: AttentionItem[] = [];
  const closed: AttentionItem[] = [];
  for (const log of fleet.values()) {
    for (const request of log.events) {
      if (request.type !== 'attention.requested') continue;
      const outcome = attentionOutcome(bySubject.get(request.id) ?? []);
      const { state, answer, closedAt } = outcome;
      const item = { request, ...describeRequest(request), state, answer, closedAt, outcome };
      (state === 'open' ? open : closed).push(item);
    }
  }
  open.sort((a, b) => (a.request.time < b.request.time ? -1 : 1));
  closed.sort((a, b) => ((a.closedAt ?? '') < (b.closedAt ?? '') ? 1 : -1));
  return { open, closed: closed.slice(0, 50) };
}
