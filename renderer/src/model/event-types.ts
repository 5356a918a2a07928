/** Type predicates over AEP event types, shared by the store and the views. */
import type { AepEvent } from '../../../common/aep/envelope';

/** Types the fleet subscription carries (replayed and resumed): state, attention, steering. */
export const FLEET_TYPE_PATTERNS = ['session.*', 'run.*', 'attention.*', 'control.*', 'x.*'] as const;

/** Types the activity subscription carries live only, for "last activity" without storing them. */
export const ACTIVITY_TYPE_PATTERNS = ['tool.*', 'progress.*', 'delegation.*', 'message.*', 'error.*', 'resource.*', 'state.*', 'assessment.*'] as const;

/** attr-match type-pattern test (AEP-0003 §6.2 rule 3). */
export function matchesTypePattern(type: string, pattern: string): boolean {
  return pattern.endsWith('.*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern;
}

/** True for the event types the fleet subscription carries. */
export const isFleetType = (type: string): boolean => FLEET_TYPE_PATTERNS.some((p) => matchesTypePattern(type, p));

const INSTRUCT = /^x\.([a-z0-9-]+)\.control\.instruct$/;
const DELIVERED = /^x\.([a-z0-9-]+)\.instruction\.delivered$/;
const DROPPED = /^x\.([a-z0-9-]+)\.instruction\.dropped$/;

/** True for a steering command. */
export const isInstruct = (type: string): boolean => INSTRUCT.test(type);
/** True for a steering delivery outcome. */
export const isDelivered = (type: string): boolean => DELIVERED.test(type);
/** True for a steering drop outcome. */
export const isDropped = (type: string): boolean => DROPPED.test(type);
/** True for any event of the steering loop (command, ack, outcome). */
export const isSteeringEvent = (type: string): boolean =>
  isInstruct(type) || isDelivered(type) || isDropped(type) || type === 'control.accepted' || type === 'control.rejected';

/** True for terminal run events. */
export const isRunEnd = (type: string): boolean => type === 'run.finished' || type === 'run.failed' || type === 'run.cancelled';

/** A string member of data, or undefined. */
export function dataString(event: AepEvent, key: string): string | undefined {
  const value = event.data?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** A number member of data, or undefined. */
export function dataNumber(event: AepEvent, key: string): number | undefined {
  const value = event.data?.[key];
  return typeof value === 'number' ? value : undefined;
}

/** The tool name of a tool.* event. */
export function toolName(event: AepEvent): string {
  const tool = event.data?.tool as { name?: unknown } | undefined;
  return typeof tool?.name === 'string' ? tool.name : 'tool';
}

/** The pairing id of a tool.* event, when the emitter gave one. */
export function toolCallId(event: AepEvent): string | undefined {
  const tool = event.data?.tool as { call_id?: unknown } | undefined;
  return typeof tool?.call_id === 'string' ? tool.call_id : undefined;
}
