/** Per-field `x-aep-capture` annotations (AEP-0002 §5.1), read once from the payload schemas into a lookup tree. */
import type { Capture } from '../../../common/aep/envelope';
import { TYPE_SCHEMAS } from './type-schemas';

/** The minimum capture level of one payload position, with its annotated members and array items. */
export interface CaptureNode {
  readonly level: Capture;
  readonly props?: ReadonlyMap<string, CaptureNode>;
  readonly items?: CaptureNode;
}

interface SchemaLike {
  readonly 'x-aep-capture'?: Capture;
  readonly properties?: Readonly<Record<string, SchemaLike>>;
  readonly items?: SchemaLike | boolean;
}

/** Builds the node for a schema position; an unannotated field defaults to `metadata` (§5.1 rule 4). */
export function captureNode(schema: SchemaLike, fallback: Capture = 'metadata'): CaptureNode {
  const level = schema['x-aep-capture'] ?? fallback;
  const props = schema.properties
    ? new Map(Object.entries(schema.properties).map(([k, s]) => [k, captureNode(s)] as const))
    : undefined;
  const items = typeof schema.items === 'object' ? captureNode(schema.items) : undefined;
  return { level, ...(props && { props }), ...(items && { items }) };
}

let byType: Map<string, CaptureNode> | undefined;
let extensions: readonly (readonly [RegExp, CaptureNode])[] | undefined;

/**
 * The field levels of this project's own extension types, which have no registered schema: the
 * steering verb `x.{vendor}.control.instruct` carries `{ text }` at `redacted` (the steering design
 * record), and its outcomes `x.{vendor}.instruction.delivered` / `.dropped` carry no free text;
 * nor does a steer's seen-by-agent receipt `x.{agent}.input.received` (ids only), nor a launched
 * session's `x.{agent}.session.state`; `x.acp.agent.output` carries model text at `redacted`.
 */
function extensionAnnotations(): readonly (readonly [RegExp, CaptureNode])[] {
  return (extensions ??= [
    [/^x\.[a-z0-9_-]+\.control\.instruct$/, flatAnnotations({ text: 'redacted' })],
    [
      /^x\.[a-z0-9_-]+\.instruction\.(delivered|dropped)$/,
      flatAnnotations({ queued_ms: 'metadata', moment: 'metadata', reason: 'metadata' }),
    ],
    [
      /^x\.[a-z0-9_-]+\.input\.received$/,
      flatAnnotations({ input: 'metadata', turn: 'metadata', item: 'metadata', mechanism: 'metadata' }),
    ],
    // Model output with no prompt in flight (background work): its length, the text at `redacted`.
    [/^x\.acp\.agent\.output$/, flatAnnotations({ chars: 'metadata', in_flight: 'metadata', text: 'redacted' })],
    // A launched session's pushed state: capability and steer state, no free text but the reason.
    [
      /^x\.[a-z0-9_-]+\.session\.state$/,
      flatAnnotations({ state: 'metadata', steer: 'metadata', supports_steering: 'metadata', mode: 'metadata', mechanism: 'metadata', reason: 'metadata', support_reason: 'metadata', badge: 'metadata' }),
    ],
    // What a transcript adds (transcripts/transcript-events.ts): the reply text and the title are free text.
    [
      /^x\.[a-z0-9_-]+\.message\.replied$/,
      flatAnnotations({ message_id: 'metadata', role: 'metadata', text: 'redacted', text_digest: 'metadata', chars: 'metadata', usage: 'metadata', 'gen_ai.request.model': 'metadata' }),
    ],
    [/^x\.[a-z0-9_-]+\.session\.titled$/, flatAnnotations({ title: 'redacted' })],
  ]);
}

/**
 * The annotation tree of a type's payload: a registered type's schema annotations, this project's own
 * extension types (`extensionAnnotations`), or undefined for other types without a schema.
 */
export function captureAnnotations(type: string): CaptureNode | undefined {
  byType ??= new Map(
    Object.entries(TYPE_SCHEMAS).map(([t, s]) => [t, captureNode(s as SchemaLike)] as const),
  );
  const registered = byType.get(type);
  if (registered !== undefined || !type.startsWith('x.')) return registered;
  return extensionAnnotations().find(([pattern]) => pattern.test(type))?.[1];
}

/** Builds a flat annotation tree for a vendor type's payload from field → level, for adapters that know it. */
export const flatAnnotations = (levels: Readonly<Record<string, Capture>>): CaptureNode => ({
  level: 'metadata',
  props: new Map(Object.entries(levels).map(([k, level]) => [k, { level }] as const)),
});
