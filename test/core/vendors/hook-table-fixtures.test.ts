/**
 * The Annex A mapping fixtures for the four vendors whose whole hook table is pinned: each case's
 * payload, parsed and mapped from a fresh session at the default capture posture, must yield exactly
 * the expected events (type, data with digests, subject).
 */
import { describe, expect, it } from 'vitest';
import { INITIAL_MAPPING_STATE, VENDOR_ADAPTERS } from '../../../main/core/vendors';
import type { VendorId } from '../../../common/vendors';
import {
  loadMappingFixture,
  mustParse,
  pinned,
  testContext,
  withoutComments,
} from './mapping-context';

interface FixtureCase {
  readonly input: unknown;
  readonly expected: unknown;
}

const casesOf = (vendor: VendorId): [string, FixtureCase][] => {
  const fixture = loadMappingFixture(vendor);
  const hooks = fixture.hooks as Record<string, FixtureCase>;
  return [...Object.entries(hooks), ['fallback', fixture.fallback as FixtureCase]];
};

/** Fixture expectations are one event, null (nothing), or an array (Hermes). */
const expectedEvents = (expected: unknown): unknown[] => {
  if (expected === null) return [];
  const clean = withoutComments(expected);
  return Array.isArray(clean) ? clean : [clean];
};

for (const vendor of ['codex', 'qwen-code', 'vscode', 'hermes'] as const) {
  describe(`${vendor} mapping fixture`, () => {
    const adapter = VENDOR_ADAPTERS[vendor];
    it.each(casesOf(vendor))('maps %s exactly as pinned', (_name, fixtureCase) => {
      const call = mustParse(adapter, fixtureCase.input);
      const outcome = adapter.map(call, INITIAL_MAPPING_STATE, testContext());
      expect(outcome.events.map(pinned)).toEqual(expectedEvents(fixtureCase.expected));
    });
  });
}
