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
      // The pinned mapping is the observing one; VS Code's and Hermes's tool gates are opt-in.
      const gated = vendor === 'vscode' || vendor === 'hermes';
      const outcome = adapter.map(call, INITIAL_MAPPING_STATE, testContext(gated ? { permissionLoop: false } : {}));
      expect(outcome.events.map(pinned)).toEqual(expectedEvents(fixtureCase.expected));
      if (gated && adapter.isHeld(call, true)) {
        // With the gate on, the same moment adds exactly one answerable permission card.
        const held = adapter.map(call, INITIAL_MAPPING_STATE, testContext({ permissionLoop: true }));
        expect(held.events.map(pinned).slice(0, outcome.events.length)).toEqual(expectedEvents(fixtureCase.expected));
        expect(held.events.slice(outcome.events.length)).toMatchObject([{ type: 'attention.requested', data: { kind: 'permission', respond_via: ['control'] } }]);
      }
    });
  });
}
