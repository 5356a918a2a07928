/** AEP-0001 §8.2(a): an event's `data` honors its declared `capture` level, checked against the field annotations. */
import { captureRank, type AepEvent } from '../../../common/aep/envelope';
import { captureAnnotations, type CaptureNode } from './capture-annotations';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Names the first payload field gated above the event's declared capture, or returns undefined when the payload
 * honors it. A hop relies on `capture` to down-level, so a dishonest one would leak past every subscriber ceiling.
 * The `[metadata*]` exception fields cannot be checked mechanically (their content rule is about provenance).
 */
export function captureViolation(event: AepEvent): string | undefined {
  const data = event.data;
  if (data === undefined) return undefined;
  const capture = event.capture ?? 'metadata';
  if (capture === 'none') {
    return Object.keys(data).length === 0
      ? undefined
      : 'AEP-0001 §8.2(a): capture none carries no payload content, but data is present';
  }
  const node = captureAnnotations(event.type);
  if (node === undefined) return undefined;
  const path = find(data, node, captureRank(capture), 'data');
  if (path === undefined) return undefined;
  const message = `AEP-0001 §8.2(a) / AEP-0002 §5.1: ${path.at} is gated ${path.level}, above the event's capture ${capture}`;
  // The project's own extension types have no schema to read the rule from: say what to do.
  return event.type.startsWith('x.')
    ? `${message} (${event.type} carries ${path.level}-class text: declare capture "${path.level}" or higher, or leave the field out)`
    : message;
}

function find(
  value: unknown,
  node: CaptureNode,
  rank: number,
  at: string,
): { at: string; level: string } | undefined {
  if (node.props !== undefined && isRecord(value)) {
    for (const key of Object.keys(value)) {
      const child = node.props.get(key);
      if (child === undefined) continue;
      if (captureRank(child.level) > rank) return { at: `${at}/${key}`, level: child.level };
      const deeper = find(value[key], child, rank, `${at}/${key}`);
      if (deeper !== undefined) return deeper;
    }
  } else if (node.items !== undefined && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const deeper = find(value[i], node.items, rank, `${at}/${i}`);
      if (deeper !== undefined) return deeper;
    }
  }
  return undefined;
}
