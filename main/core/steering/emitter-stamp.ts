/**
 * Envelope stamping shared by the daemon's own emitters (observed vendor sessions, launched
 * agents): one draft becomes one event with its id, time, source, position and capture. Key order
 * is fixed here, so the JSON of a recorded event is reproducible byte for byte.
 */
import { AEP_VERSION, type AepEvent } from '../../../common/aep/envelope';
import type { EventDraft } from './steering-types';

/** What every event of one stamping call shares: its session's envelope and the call's time. */
export interface StampFrame {
  readonly agent: string;
  readonly source: string;
  readonly session: string;
  readonly epoch: number;
  /** RFC 3339 time of the call (one clock read for every draft of it). */
  readonly time: string;
}

/** Stamps one draft at position `seq`. At capture `none` the event is the envelope alone (AEP-0001 §8.2). */
export function stampDraft(frame: StampFrame, d: EventDraft, id: string, seq: number): AepEvent {
  const event: Record<string, unknown> = { aep: AEP_VERSION, id, type: d.type };
  if (d.subject !== undefined) event.subject = d.subject;
  event.time = frame.time;
  event.source = frame.source;
  event.agent = frame.agent;
  event.session = frame.session;
  if (d.run !== undefined) event.run = d.run;
  if (d.step !== undefined) event.step = d.step;
  event.seq = seq;
  event.epoch = frame.epoch;
  if (d.cause !== undefined) event.cause = d.cause;
  if (d.severity !== undefined) event.severity = d.severity;
  if (d.capture !== undefined) event.capture = d.capture;
  if (d.capture !== 'none') event.data = d.data ?? {};
  return event as unknown as AepEvent;
}

/** Remembers a correlation key (most recent last); the oldest falls off beyond `max`. */
export function rememberKey(map: Map<string, string>, key: string, id: string, max: number): void {
  map.delete(key);
  map.set(key, id);
  if (map.size > max) map.delete(map.keys().next().value as string);
}
