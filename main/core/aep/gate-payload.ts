/** The capture-gating engine shared by fan-out down-leveling and adapter-side ceilings (AEP-0002 §5.1, AEP-0003 §9). */
import { captureRank, type AepEvent, type Capture } from '../../../common/aep/envelope';
import { captureAnnotations, type CaptureNode } from './capture-annotations';
import { contentDigest } from './content-digest';
import { gateFormValues, gateFormValuesBlind, type FieldSpec } from './form-values';
import { redact, redactValue, type RedactOptions } from './redact';

/** How a rewrite treats content beyond dropping fields above the target level. */
export interface GateContext {
  /** Present for a redacting party (adapter or redacting re-emitter): redacted-gated text passes the §9.4 pipeline. */
  readonly redact?: RedactOptions;
  /** Adapter side: add `X_digest` for a dropped `X` when the schema has one (computed over the original, §9.3). */
  readonly digests?: boolean;
  /** The form's field specs, for exact `answer.values` gating; without them a conservative rule applies. */
  readonly fields?: readonly FieldSpec[];
  /** Annotations for a type without a registered schema (a vendor type the caller knows). */
  readonly annotations?: CaptureNode;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Rewrites `event` to capture level `target`, gating `data` per the annotations; the input is never mutated. */
export function rewriteCapture(event: AepEvent, target: Capture, ctx: GateContext = {}): AepEvent {
  if (target === 'none' || event.data === undefined) {
    const { data: _dropped, ...rest } = event;
    return target === 'none' ? { ...rest, capture: 'none' } : { ...event, capture: target };
  }
  const node = ctx.annotations ?? captureAnnotations(event.type);
  if (node === undefined || target === 'full') {
    if (target === 'full') return { ...event, capture: 'full' };
    // No annotations: nothing in data can be shown to be safe at a lower level, so it goes wholesale.
    const { data: _dropped, ...rest } = event;
    return { ...rest, capture: target };
  }
  const redacting = target === 'redacted' ? ctx.redact : undefined;
  const walked = walk(event.data, node, target, { ...ctx, redact: redacting }, false);
  const data = starred(event, isRecord(walked) ? walked : {}, target, {
    ...ctx,
    redact: redacting,
  });
  return { ...event, capture: target, data };
}

function walk(
  value: unknown,
  node: CaptureNode,
  target: Capture,
  ctx: GateContext,
  underRedacted: boolean,
): unknown {
  if (node.props !== undefined && isRecord(value)) {
    const props = node.props;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const child = props.get(key);
      const level = child?.level ?? 'metadata';
      if (captureRank(level) > captureRank(target)) {
        derive(value, key, level, props, out, ctx);
        continue;
      }
      let v =
        child === undefined
          ? value[key]
          : walk(value[key], child, target, ctx, underRedacted || level === 'redacted');
      if (!underRedacted && level === 'redacted' && ctx.redact !== undefined)
        v = redactValue(v, ctx.redact);
      out[key] = v;
    }
    return out;
  }
  if (node.items !== undefined && Array.isArray(value)) {
    const items = node.items;
    return value.map((item) => walk(item, items, target, ctx, underRedacted));
  }
  return value;
}

/** Adapter-side companions of a dropped field: its digest (§9.3) and, at `redacted`, its redacted twin. */
function derive(
  value: Record<string, unknown>,
  key: string,
  level: Capture,
  props: ReadonlyMap<string, CaptureNode>,
  out: Record<string, unknown>,
  ctx: GateContext,
): void {
  const digestKey = `${key}_digest`;
  if (ctx.digests === true && props.has(digestKey) && value[digestKey] === undefined) {
    out[digestKey] = contentDigest(value[key]);
  }
  const twinKey = `${key}_redacted`;
  if (
    ctx.redact !== undefined &&
    level === 'full' &&
    props.get(twinKey)?.level === 'redacted' &&
    value[twinKey] === undefined
  ) {
    out[twinKey] = redactValue(value[key], ctx.redact);
  }
}

/**
 * The `[metadata*]` exception fields (AEP-0002 §5.3, AEP-0003 §9.2): below `redacted` the prompt is synthesized and
 * labels degrade to ids, never carrying authored text; at `redacted` a redacting party passes them through the pipeline.
 */
function starred(
  event: AepEvent,
  data: Record<string, unknown>,
  target: Capture,
  ctx: GateContext,
): Record<string, unknown> {
  const type = event.type;
  const textAllowed = captureRank(target) >= captureRank('redacted');
  if (type === 'attention.requested') {
    if (textAllowed && ctx.redact === undefined) return data;
    const label = textAllowed
      ? (o: Record<string, unknown>) =>
          typeof o.label === 'string' ? redact(o.label, ctx.redact) : o.label
      : (o: Record<string, unknown>) => o.id;
    const out: Record<string, unknown> = { ...data };
    if (textAllowed) {
      if (typeof data.prompt === 'string') out.prompt = redact(data.prompt, ctx.redact);
    } else {
      const kind = typeof data.kind === 'string' ? data.kind : 'input';
      out.prompt =
        event.subject === undefined
          ? `${event.agent} requests ${kind}`
          : `${event.agent} requests ${kind}: ${event.subject}`;
    }
    if (Array.isArray(data.options))
      out.options = data.options.map((o) => (isRecord(o) ? { ...o, label: label(o) } : o));
    if (Array.isArray(data.fields)) {
      out.fields = data.fields.map((f) => {
        if (!isRecord(f)) return f;
        const field: Record<string, unknown> = { ...f, label: label(f) };
        if (Array.isArray(f.choices))
          field.choices = f.choices.map((c) => (isRecord(c) ? { ...c, label: label(c) } : c));
        return field;
      });
    }
    return out;
  }
  if (type === 'attention.answered' || type === 'control.attention.respond') {
    const answer = data.answer;
    if (!isRecord(answer) || !isRecord(answer.values)) return data;
    if (textAllowed && ctx.redact === undefined && ctx.fields === undefined) return data;
    let values =
      ctx.fields !== undefined ? gateFormValues(ctx.fields, answer.values, target) : answer.values;
    if (!textAllowed && ctx.fields === undefined) values = gateFormValuesBlind(values);
    if (textAllowed && ctx.redact !== undefined)
      values = redactValue(values, ctx.redact) as Record<string, unknown>;
    return { ...data, answer: { ...answer, values } };
  }
  return data;
}
