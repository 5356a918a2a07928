/** Capture down-leveling at a re-emitting or fan-out hop (AEP-0001 §8.2, AEP-0002 §5.1, AEP-0003 §6.4). */
import { captureRank, type AepEvent, type Capture } from '../../../common/aep/envelope';
import { rewriteCapture } from './gate-payload';
import type { RedactOptions } from './redact';

/** Options of a down-leveling hop. */
export interface DownlevelOptions {
  /**
   * Makes the hop a redacting re-emitter (AEP-0001 §8.2(e)): it applies the §9.4 pipeline to every redacted-gated
   * field it keeps, so a `redacted` ceiling on a `full` event may land on `redacted` instead of `metadata`.
   */
  readonly redact?: RedactOptions;
}

/**
 * Down-levels `event` to `ceiling`: drops every payload field above the new level and rewrites `capture`. Never
 * up-levels, and returns the same object when nothing changes. A mechanical hop never mints the `redacted` claim:
 * a `full` event against a `redacted` ceiling lands on `metadata` unless the hop redacts itself.
 */
export function downlevel(
  event: AepEvent,
  ceiling: Capture,
  options: DownlevelOptions = {},
): AepEvent {
  const from = event.capture ?? 'metadata';
  if (captureRank(ceiling) >= captureRank(from)) return event;
  const redacting = options.redact !== undefined;
  const target: Capture =
    ceiling === 'redacted' && from === 'full' && !redacting ? 'metadata' : ceiling;
  return rewriteCapture(event, target, redacting ? { redact: options.redact } : {});
}
