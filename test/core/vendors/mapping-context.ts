/** Test helpers for the vendor mappings: a context with the real redaction pipeline and counted run ids. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { redact } from '../../../main/core/aep';
import {
  DEFAULT_CAPTURE_POLICY,
  INITIAL_MAPPING_STATE,
  type CapturePolicy,
  type HookCall,
  type MappedEvent,
  type MappingContext,
  type MappingState,
  type VendorAdapter,
} from '../../../main/core/vendors';

/** A mapping context as the daemon builds it, with predictable run ids (`run-1`, `run-2`, …). */
export const testContext = (
  overrides: Partial<MappingContext> & { capture?: CapturePolicy } = {},
): MappingContext => {
  let runs = 0;
  return {
    capture: DEFAULT_CAPTURE_POLICY,
    redact: (text) => redact(text, { home: '/home/operator' }),
    newRunId: () => `run-${++runs}`,
    permissionLoop: true,
    ...overrides,
  };
};

/** Parses a payload and fails the test with the parser's message when it is refused. */
export const mustParse = (adapter: VendorAdapter, payload: unknown): HookCall => {
  const parsed = adapter.parse(payload);
  if (!parsed.ok) throw new Error(`payload refused: ${parsed.error.message}`);
  return parsed.value;
};

/** Runs a sequence of payloads through one session's mapping, returning every event and the final state. */
export const runSession = (
  adapter: VendorAdapter,
  payloads: readonly unknown[],
  context: MappingContext = testContext(),
  start: MappingState = INITIAL_MAPPING_STATE,
): { events: MappedEvent[]; state: MappingState; perCall: MappedEvent[][] } => {
  let state = start;
  const events: MappedEvent[] = [];
  const perCall: MappedEvent[][] = [];
  for (const payload of payloads) {
    const outcome = adapter.map(mustParse(adapter, payload), state, context);
    state = outcome.state;
    events.push(...outcome.events);
    perCall.push([...outcome.events]);
  }
  return { events, state, perCall };
};

/** The fields a mapping fixture pins: type, data and subject when present. */
export const pinned = (event: MappedEvent): Record<string, unknown> => ({
  type: event.type,
  data: event.data,
  ...(event.subject === undefined ? {} : { subject: event.subject }),
});

/** Removes `$comment` keys, recursively, from a fixture value. */
export const withoutComments = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutComments);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== '$comment')
        .map(([key, inner]) => [key, withoutComments(inner)]),
    );
  }
  return value;
};

/** Loads a mapping fixture from test/fixtures/aep/mappings. */
export const loadMappingFixture = (vendor: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(
      fileURLToPath(new URL(`../../fixtures/aep/mappings/${vendor}.json`, import.meta.url)),
      'utf8',
    ),
  ) as Record<string, unknown>;
