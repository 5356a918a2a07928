/** The adapter-side capture ceiling (AEP-0003 §9.1–§9.5): build an event with everything, then gate it once. */
import type { AepEvent, Capture } from '../../../common/aep/envelope';
import { flatAnnotations } from './capture-annotations';
import type { FieldSpec } from './form-values';
import { rewriteCapture } from './gate-payload';
import type { RedactOptions } from './redact';

/** What an emitting adapter knows beyond the event itself. */
export interface CeilingOptions {
  /** The operator's redaction configuration (rule b secret values, rule c home, rule d PII toggle). */
  readonly redact?: RedactOptions;
  /** The field specs of the form an `attention.answered` / `control.attention.respond` answers, for exact values gating. */
  readonly fields?: readonly FieldSpec[];
  /** Field levels of a vendor type's payload (`x.*` types have no registered schema; without this their data drops below `full`). */
  readonly payloadLevels?: Readonly<Record<string, Capture>>;
}

/**
 * Applies an emitter's capture ceiling to a draft event whose payload holds verbatim (`full`) content, and sets
 * `capture` to the level honored. Fields above the ceiling drop; `X_digest` is added for a dropped `X` where the type
 * defines one (over the original content); at `redacted`, redacted-gated text passes the §9.4 pipeline and a dropped
 * `X` fills an absent `X_redacted` twin; at `metadata` the attention prompt is synthesized and labels become ids.
 */
export function applyCeiling(
  draft: AepEvent,
  ceiling: Capture,
  options: CeilingOptions = {},
): AepEvent {
  return rewriteCapture(draft, ceiling, {
    redact: options.redact ?? {},
    digests: true,
    ...(options.fields && { fields: options.fields }),
    ...(options.payloadLevels && { annotations: flatAnnotations(options.payloadLevels) }),
  });
}
