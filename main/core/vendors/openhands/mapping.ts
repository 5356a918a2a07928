/**
 * OpenHands agent-server events → AEP (pure), per the bridge design as corrected by
 * research/openhands/FACTS.md (test/fixtures/aep/mappings/openhands.json): `ActionEvent` →
 * `tool.requested`, `ObservationEvent` → `tool.completed`/`tool.failed` (its `is_error`),
 * `AgentErrorEvent` → `tool.failed`, a hook's `UserRejectObservation` → `tool.denied` and a user's →
 * `x.openhands.user_reject.observation`, matched to their action by `tool_call_id`; `MessageEvent`
 * → `x.openhands.message.event` with its text (redacted-gated); runs and the confirmation card from
 * the server's own `execution_status` (statusMoments). Every event carries the vendor id and naive
 * server-local time at metadata (`vendor_event_id`, `vendor_ts`). Unknown kinds map mechanically to
 * `x.openhands.<family>.<leaf>`; `TokenEvent` and `StreamingDeltaEvent` map to nothing.
 */
import { gateFor } from '../capture-gate';
import { mapped, toolCompleted, toolDenied, toolFailed, toolRequested } from '../event-builders';
import { compact } from '../payload-fields';
import type { HookTool, MappedEvent, MappingContext } from '../types';
import type { OhEvent } from './wire';

/** What the mapping carries between events of one conversation. */
export interface ConversationMapping {
  /** The last `execution_status` seen, or null before the first. */
  status: string | null;
  /** The open AEP run, or null. */
  run: string | null;
  /** The open confirmation card's subject, or null. */
  attention: string | null;
  /** Actions without an outcome yet: tool_call_id → tool name (the pending ones, when confirming). */
  readonly openTools: Map<string, string>;
  /** Cards opened so far (their subjects count up). */
  cards: number;
}

export const newConversationMapping = (): ConversationMapping => ({ status: null, run: null, attention: null, openTools: new Map(), cards: 0 });

/** Posture the caller decides: whether the card can be answered from the companion. */
export interface MapOptions {
  readonly answerable: boolean;
  readonly conversation: string;
}

const text = (parts: unknown): string | undefined => {
  if (typeof parts === 'string') return parts;
  if (!Array.isArray(parts)) return undefined;
  const out = parts
    .map((p) => (p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' ? String((p as { text?: unknown }).text ?? '') : ''))
    .join('');
  return out === '' ? undefined : out;
};

const s = (e: Readonly<Record<string, unknown>>, key: string): string | undefined => (typeof e[key] === 'string' ? (e[key] as string) : undefined);

/** `MessageEvent` → `x.openhands.message.event`: `FooBarEvent` → `foo.bar.event`, `FooBar` → `foo.bar`, `Foo` → `foo.event`. */
export function vendorType(kind: string): string {
  const snake = kind.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toLowerCase();
  const name = snake.endsWith('_event') && snake !== '_event' ? snake.slice(0, -'_event'.length) : snake;
  const cut = name.lastIndexOf('_');
  return cut <= 0 ? `x.openhands.${name}.event` : `x.openhands.${name.slice(0, cut)}.${name.slice(cut + 1)}`;
}

const withVendor = (ev: MappedEvent, e: OhEvent, step?: string): MappedEvent => ({
  ...ev,
  ...(step ? { step } : {}),
  ...(ev.data === undefined ? {} : { data: { ...ev.data, vendor_ts: e.timestamp, vendor_event_id: e.id } }),
});

/** Maps one event; `m` is updated in place. */
export function mapEvent(e: OhEvent, m: ConversationMapping, context: MappingContext, options: MapOptions): MappedEvent[] {
  const tool = (): HookTool => ({ name: s(e, 'tool_name') ?? 'unknown', callId: s(e, 'tool_call_id') });
  const step = s(e, 'llm_response_id');
  switch (e.kind) {
    case 'ActionEvent': {
      const t = { ...tool(), input: e.action ?? undefined };
      if (t.callId) m.openTools.set(t.callId, t.name);
      const ev = toolRequested(t, context, m.run);
      const risk = s(e, 'security_risk');
      const data = ev.data === undefined ? undefined : compact({ ...ev.data, risk: risk && risk !== 'UNKNOWN' ? risk : undefined });
      return [withVendor({ ...ev, ...(data ? { data } : {}) }, e, step)];
    }
    case 'ObservationEvent': {
      const t = tool();
      if (t.callId) m.openTools.delete(t.callId);
      const obs = (e.observation ?? {}) as Record<string, unknown>;
      const content = text(obs.content);
      if (obs.is_error === true) return [withVendor(toolFailed(t, 'tool_error', content, context, m.run), e)];
      return [withVendor(toolCompleted(t, content ?? obs, context, m.run), e)];
    }
    case 'AgentErrorEvent': {
      const t = tool();
      if (t.callId) m.openTools.delete(t.callId);
      return [withVendor(toolFailed(t, 'agent_error', s(e, 'error'), context, m.run), e)];
    }
    case 'UserRejectObservation': {
      const t = tool();
      if (t.callId) m.openTools.delete(t.callId);
      if (e.rejection_source === 'hook') return [withVendor(toolDenied(t, 'policy', s(e, 'rejection_reason'), context, m.run), e)];
      const gate = gateFor('x.openhands.user_reject.observation', context);
      const ev = mapped('x.openhands.user_reject.observation', context, compact({ tool: compact({ name: t.name, call_id: t.callId }), reason: gate.text(s(e, 'rejection_reason')) }), {
        subject: t.name,
        run: m.run,
        causeHint: t.callId ? { type: 'tool.requested', key: t.callId } : undefined,
      });
      return [withVendor(ev, e)];
    }
    case 'MessageEvent': {
      const msg = (e.llm_message ?? {}) as Record<string, unknown>;
      const gate = gateFor('x.openhands.message.event', context);
      const skills = Array.isArray(e.activated_skills) && e.activated_skills.length > 0 ? e.activated_skills.length : undefined;
      const data = compact({ role: s(msg, 'role') ?? (e.source === 'agent' ? 'assistant' : 'user'), source: e.source, skills, text: gate.text(text(msg.content)) });
      return [withVendor(mapped('x.openhands.message.event', context, data, { run: m.run }), e, step)];
    }
    case 'ConversationStateUpdateEvent': {
      const key = s(e, 'key') ?? '';
      const value = e.value as unknown;
      // Runs follow the persisted field changes only: every status change is one, in log order. The
      // `full_state` snapshot is sent first on each subscription, before the replay, with the status
      // of now, so it would run ahead of the events it precedes.
      const status = key === 'execution_status' && typeof value === 'string' ? value : null;
      const snapshotStatus = key === 'full_state' && value && typeof value === 'object' ? (value as { execution_status?: unknown }).execution_status : undefined;
      const gate = gateFor('state.delta', context);
      const own =
        key === 'full_state'
          ? mapped('state.snapshot', context, compact({ status: typeof snapshotStatus === 'string' ? snapshotStatus : undefined }), { run: m.run })
          : mapped('state.delta', context, compact({ key, value: key === 'execution_status' ? value : gate.redacted(value) }), { run: m.run });
      return [withVendor(own, e), ...(status === null ? [] : statusMoments(m, status, context, options))];
    }
    case 'ConversationErrorEvent': {
      const gate = gateFor('error.raised', context);
      return [withVendor(mapped('error.raised', context, compact({ code: s(e, 'code'), detail: gate.text(s(e, 'detail')) }), { run: m.run, severity: 'error' }), e)];
    }
    case 'Condensation': {
      const forgotten = Array.isArray(e.forgotten_event_ids) ? e.forgotten_event_ids.length : undefined;
      const gate = gateFor('session.compacted', context);
      return [withVendor(mapped('session.compacted', context, compact({ forgotten, summary: gate.text(s(e, 'summary')) }), { run: m.run }), e)];
    }
    case 'TokenEvent':
    case 'StreamingDeltaEvent':
      return [];
    default:
      return [withVendor(mapped(vendorType(e.kind), context, {}, { run: m.run, severity: 'debug' }), e)];
  }
}

/** The AEP moments of a status change (the server's own `ConversationExecutionStatus`). */
export function statusMoments(m: ConversationMapping, next: string, context: MappingContext, options: MapOptions): MappedEvent[] {
  const prev = m.status;
  if (prev === next) return [];
  m.status = next;
  const out: MappedEvent[] = [];
  if (m.attention !== null && next !== 'waiting_for_confirmation') {
    const subject = m.attention;
    m.attention = null;
    const resolution = next === 'paused' || next === 'deleting' ? 'dismissed' : 'answered';
    out.push(mapped('attention.resolved', context, { resolution }, { subject, run: m.run, causeHint: { type: 'attention.requested', key: subject } }));
  }
  const close = (type: 'run.finished' | 'run.failed' | 'run.cancelled', data: Record<string, unknown>): void => {
    if (m.run === null) return;
    const run = m.run;
    m.run = null;
    out.push(mapped(type, context, data, { run, key: run, severity: type === 'run.failed' ? 'error' : undefined, causeHint: { type: 'run.started', key: run } }));
  };
  switch (next) {
    case 'running':
      if (m.run === null) {
        m.run = context.newRunId();
        out.push(mapped('run.started', context, { trigger: 'user' }, { run: m.run, key: m.run }));
      }
      break;
    case 'waiting_for_confirmation': {
      m.cards += 1;
      const subject = `confirm-${options.conversation}-${m.cards}`;
      m.attention = subject;
      const tools = [...new Set(m.openTools.values())];
      const data = compact({
        kind: 'permission',
        prompt: `OpenHands awaits confirmation for ${tools.length === 0 ? 'a pending action' : tools.join(', ')}`,
        options: options.answerable
          ? [
              { id: 'approve', label: 'Approve' },
              { id: 'deny', label: 'Deny' },
            ]
          : undefined,
        respond_via: [options.answerable ? 'control' : 'oob'],
      });
      out.push(mapped('attention.requested', context, data, { subject, run: m.run, key: subject }));
      break;
    }
    case 'finished':
      close('run.finished', {});
      break;
    case 'idle':
      close('run.finished', { reason: 'idle' });
      break;
    case 'error':
      close('run.failed', { reason: 'error' });
      break;
    case 'stuck':
      close('run.failed', { reason: 'stuck' });
      break;
    case 'deleting':
      close('run.cancelled', { reason: 'deleting' });
      out.push(mapped('session.ended', context, { reason: 'killed' }));
      break;
    default:
      break;
  }
  return out;
}
