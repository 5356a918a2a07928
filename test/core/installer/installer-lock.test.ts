import { utimes, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VENDORS } from '../../../common/vendors';
import { applyInstall, readManifest } from '../../../main/core/installer';
import { makeTestEnv, unwrap, type TestEnv } from './installer-test-env';

let t: TestEnv;
beforeEach(async () => {
  t = await makeTestEnv();
});
afterEach(async () => {
  await t.cleanup();
});

describe('installer lock', () => {
  it('serialises concurrent installs so the manifest records every one of them', async () => {
    const results = await Promise.all(
      VENDORS.map((vendor) =>
        applyInstall({ vendor, scope: 'user', instruct: false, permissions: false }, t.env),
      ),
    );
    for (const r of results) unwrap(r);
    const manifest = unwrap(await readManifest(t.env));
    expect(manifest.installs.map((i) => i.vendor).sort()).toEqual([...VENDORS].sort());
  });

  it('takes over a lock left behind by a crashed writer', async () => {
    const lock = join(t.env.dataDir, 'installer', '.lock');
    await mkdir(join(t.env.dataDir, 'installer'), { recursive: true });
    await writeFile(lock, '999999');
    const old = new Date(Date.now() - 3_600_000);
    await utimes(lock, old, old);
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
  });
});
