/**
 * Per-field capture gating for the mappings (AEP-0003 §9): fields above the ceiling are dropped,
 * redacted-gated text passes the redaction pipeline, digests are taken over the original content.
 */
import type { Capture } from '../../../../common/aep/envelope';
import { captureRank } from '../../../../common/aep/envelope';
import { contentDigest, isCredentialKey, SECRET_MARK } from '../../aep';
import type { CapturePolicy, MappingContext } from './types';

/** The ceiling that applies to one event type under a policy (`attention.*` has its own). */
export const ceilingFor = (type: string, policy: CapturePolicy): Capture =>
  type.startsWith('attention.') ? policy.attention : policy.default;

/** Gating helpers bound to one event's ceiling. */
export interface Gate {
  /** The ceiling honoured, written to the event's `capture`. */
  readonly ceiling: Capture;
  /** True when fields gated at `level` may ride. */
  allows(level: Capture): boolean;
  /** Redacted-gated free text: redacted at `redacted`, verbatim at `full`, absent below. */
  text(value: string | undefined): string | undefined;
  /** A redacted-gated structured value: every string inside passes the pipeline; absent below. */
  redacted(value: unknown): unknown;
  /** A full-gated value: present only at `full`. */
  full<T>(value: T): T | undefined;
  /** The digest of the original content, present at `metadata` and above. */
  digest(value: unknown): string | undefined;
}

/** Builds the gate for an event of `type` under the context's policy. */
export const gateFor = (type: string, context: MappingContext): Gate => {
  const ceiling = ceilingFor(type, context.capture);
  const allows = (level: Capture): boolean => captureRank(ceiling) >= captureRank(level);
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return context.redact(value);
    if (Array.isArray(value)) return value.map(deep);
    if (typeof value === 'object' && value !== null) {
      // A credential-named key's value goes whatever its shape (the pipeline's structured rule).
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key,
          isCredentialKey(key) && inner !== null && typeof inner !== 'boolean'
            ? SECRET_MARK
            : deep(inner),
        ]),
      );
    }
    return value;
  };
  return {
    ceiling,
    allows,
    text: (value) => {
      if (value === undefined || !allows('redacted')) return undefined;
      return allows('full') ? value : context.redact(value);
    },
    redacted: (value) => {
      if (value === undefined || !allows('redacted')) return undefined;
      return allows('full') ? value : deep(value);
    },
    full: (value) => (allows('full') ? value : undefined),
    digest: (value) =>
      value === undefined || !allows('metadata') ? undefined : contentDigest(value),
  };
};
