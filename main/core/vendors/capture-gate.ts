/**
 * Per-field capture gating for the mappings (AEP-0003 §9): fields above the ceiling are dropped,
 * redacted-gated text passes the redaction pipeline, digests are taken over the original content.
 */
import type { Capture } from '../../../common/aep/envelope';
import { captureRank } from '../../../common/aep/envelope';
import { contentDigest, isCredentialKey, SECRET_MARK } from '../aep';
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

/** Redacted-gated structured value: every string through the pipeline, credential-named keys' values dropped. */
function deep(value: unknown, context: MappingContext): unknown {
  if (typeof value === 'string') return context.redact(value);
  if (Array.isArray(value)) return value.map((inner) => deep(inner, context));
  if (typeof value === 'object' && value !== null) {
    // A credential-named key's value goes whatever its shape (the pipeline's structured rule).
    // Own enumerable keys in Object.entries order; each one an own data property of the copy,
    // `__proto__` included, as Object.fromEntries makes them.
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const inner = (value as Record<string, unknown>)[key];
      const copy = isCredentialKey(key) && inner !== null && typeof inner !== 'boolean' ? SECRET_MARK : deep(inner, context);
      if (key === '__proto__') Object.defineProperty(out, key, { value: copy, writable: true, enumerable: true, configurable: true });
      else out[key] = copy;
    }
    return out;
  }
  return value;
}

/** One event's gate: its methods live on the prototype, so a gate per event is one small object. */
class EventGate implements Gate {
  constructor(
    readonly ceiling: Capture,
    private readonly context: MappingContext,
  ) {}

  allows(level: Capture): boolean {
    return captureRank(this.ceiling) >= captureRank(level);
  }

  text(value: string | undefined): string | undefined {
    if (value === undefined || !this.allows('redacted')) return undefined;
    return this.allows('full') ? value : this.context.redact(value);
  }

  redacted(value: unknown): unknown {
    if (value === undefined || !this.allows('redacted')) return undefined;
    return this.allows('full') ? value : deep(value, this.context);
  }

  full<T>(value: T): T | undefined {
    return this.allows('full') ? value : undefined;
  }

  digest(value: unknown): string | undefined {
    return value === undefined || !this.allows('metadata') ? undefined : contentDigest(value);
  }
}

/** Builds the gate for an event of `type` under the context's policy. */
export const gateFor = (type: string, context: MappingContext): Gate => new EventGate(ceilingFor(type, context.capture), context);
