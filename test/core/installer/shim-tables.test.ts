/**
 * The installed shim's held-moment and empty-reply tables are generated from the vendor adapters
 * (issue 9: one place per vendor fact), not kept as copies: the tables in the written script are
 * exactly the adapters' `heldMoments` / `emptyCommandOutput`, for every vendor the companion adapts,
 * and every listed moment is one the daemon really holds.
 */
import { describe, expect, it } from 'vitest';
import { VENDORS } from '../../../common/vendors';
import { VENDOR_ADAPTERS } from '../../../main/core/agents/vendors';
import { SHIM_SCRIPT_NAME, shimFiles } from '../../../main/core/installer/shim-script';

function tableOf(script: string, name: string): Record<string, unknown> {
  const line = script.split('\n').find((l) => l.startsWith(`const ${name} = `));
  expect(line, `${name} in the shim`).toBeDefined();
  return JSON.parse((line as string).slice(`const ${name} = `.length).replace(/;$/, '')) as Record<
    string,
    unknown
  >;
}

describe('the hook shim tables', () => {
  const script =
    shimFiles({ home: '/h', dataDir: '/d', daemonUrl: 'http://127.0.0.1:8787' }).find((f) =>
      f.path.endsWith(SHIM_SCRIPT_NAME),
    )?.text ?? '';

  it('HELD is each adapter’s held moments, and the daemon holds each of them', () => {
    const held = tableOf(script, 'HELD');
    expect(Object.keys(held).sort()).toEqual([...VENDORS].sort());
    for (const vendor of VENDORS) {
      const adapter = VENDOR_ADAPTERS[vendor];
      expect(held[vendor], vendor).toEqual([...adapter.heldMoments]);
      for (const moment of adapter.heldMoments)
        expect(adapter.isHeld({ vendor, moment, session: 's', payload: {} }), moment).toBe(true);
    }
    expect(held['claude-code']).toEqual(['PermissionRequest', 'Elicitation']);
  });

  it('EMPTY is each adapter’s empty command output: nothing for Codex, {} for the others', () => {
    const empty = tableOf(script, 'EMPTY');
    for (const vendor of VENDORS)
      expect(empty[vendor], vendor).toBe(VENDOR_ADAPTERS[vendor].emptyCommandOutput);
    expect(empty.codex).toBe('');
    expect(empty['claude-code']).toBe(JSON.stringify(VENDOR_ADAPTERS['claude-code'].emptyReply()));
  });
});
