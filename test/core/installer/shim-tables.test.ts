/**
 * The installed shim's held-moment and empty-reply tables are generated from the vendor adapters
 * (issue 9: one place per vendor fact), not kept as copies: the tables in the written script are
 * exactly the adapters' `heldMoments` / `emptyCommandOutput`, for every vendor the companion adapts,
 * and every listed moment is one the daemon really holds.
 */
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { VENDORS } from '../../../common/vendors';
import { DEFAULT_SETTINGS } from '../../../common/settings';
import { VENDOR_ADAPTERS } from '../../../main/core/vendors';
import { VENDOR_INSTALLERS } from '../../../main/core/vendors/installers';
import { testHookBundle } from './installer-test-env';

type Tables = { held: Record<string, unknown>; heldMs: Record<string, number>; empty: Record<string, unknown> };
let tables: Tables;

// The installed script is the bundle (shim-script.test.ts); its tables are what it exports.
beforeAll(async () => {
  const bundle = createRequire(import.meta.url)(await testHookBundle()) as { HOOK_TABLES: Tables };
  tables = bundle.HOOK_TABLES;
});

describe('the hook shim tables', () => {
  it('held is each adapter’s held moments, and the daemon holds each of them', () => {
    const held = tables.held;
    expect(Object.keys(held).sort()).toEqual([...VENDORS].sort());
    for (const vendor of VENDORS) {
      const adapter = VENDOR_ADAPTERS[vendor];
      expect(held[vendor], vendor).toEqual([...adapter.heldMoments]);
      for (const moment of adapter.heldMoments)
        expect(adapter.isHeld({ vendor, moment, session: 's', payload: {} }), moment).toBe(true);
    }
    expect(held['claude-code']).toEqual(['PermissionRequest', 'Elicitation']);
  });

  it('empty is each adapter’s empty command output: nothing for Codex, {} for the others', () => {
    const empty = tables.empty;
    for (const vendor of VENDORS)
      expect(empty[vendor], vendor).toBe(VENDOR_ADAPTERS[vendor].emptyCommandOutput);
    expect(empty.codex).toBe('');
    expect(empty['claude-code']).toBe(JSON.stringify(VENDOR_ADAPTERS['claude-code'].emptyReply()));
  });

  it('heldMs ends inside each vendor’s own held timeout, and after the daemon’s default hold where it holds', () => {
    for (const vendor of VENDORS) {
      const seconds = VENDOR_INSTALLERS[vendor].heldTimeoutS;
      if (seconds === undefined) {
        expect(Object.hasOwn(tables.heldMs, vendor), vendor).toBe(false);
        continue;
      }
      expect(tables.heldMs[vendor], vendor).toBeLessThan(seconds * 1000);
      if (VENDOR_ADAPTERS[vendor].heldMoments.length > 0)
        expect(tables.heldMs[vendor], vendor).toBeGreaterThan(DEFAULT_SETTINGS['permissions.holdMs']);
    }
    expect(tables.heldMs['claude-code']).toBe(118_000);
  });
});
