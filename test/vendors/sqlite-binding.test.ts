/**
 * SQLite's binding per runtime, proven with a second runtime: Node 22 from npm (ABI 127, with its
 * headers) stands in for Electron (ABI 150, whose headers and binary cannot be fetched here). The
 * binding is prepared by scripts/sqlite-binding.mjs, the code `npm start` runs for Electron, into
 * a folder of its own; under Node 22 the daemon core opens its database through it
 * (`nativeBinding`), and the tree's own binding stays what Node 20 loads. Skips, saying why, where
 * the Node 22 package cannot be installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  prepareSqliteBinding,
  sqlitePackageDir,
  type PrepareResult,
} from '../../scripts/sqlite-binding.mjs';
import { ensureVendorCli, VENDOR_CACHE } from '../support/vendor-clis';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const probe = join(repo, 'test', 'support', 'sqlite-runtime-probe.ts');

let node22: string | null = null;
let skipReason = '';
let prepared: PrepareResult | null = null;
let scratch = '';

beforeAll(async () => {
  try {
    node22 = realpathSync((await ensureVendorCli('node-22')).bin);
  } catch (e) {
    skipReason = `Node 22 from npm cannot be installed here: ${(e as Error).message.split('\n')[0]}`;
    process.stdout.write(`test/vendors/sqlite-binding: skipped: ${skipReason}\n`);
    return;
  }
  scratch = mkdtempSync(join(tmpdir(), 'aep-sqlite-rt-'));
  prepared = await prepareSqliteBinding(node22, { root: join(VENDOR_CACHE, 'sqlite-bindings') });
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Runs the probe under `runtime` on a fresh data directory; its JSON line. */
function runProbe(runtime: string, binding: string): Record<string, unknown> {
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  const r = spawnSync(runtime, ['--import', 'tsx', probe, dataDir, binding], {
    cwd: repo,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  expect(line, `probe printed nothing (exit ${r.status}): ${r.stderr}`).toMatch(/^\{/);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('the SQLite binding of a second runtime (Node 22 from npm)', () => {
  it('is built by the preparation npm start uses, into a folder beside the package build', (ctx) => {
    if (node22 === null) return ctx.skip(skipReason);
    expect(prepared, 'prepareSqliteBinding did not finish').not.toBeNull();
    if (!prepared!.ok) throw new Error(prepared!.reason);
    expect(prepared!.runtime).toMatchObject({ runtime: 'node', abi: '127' });
    expect(existsSync(prepared!.file)).toBe(true);
    // Never inside the package's own build, which stays Node 20's.
    expect(relative(sqlitePackageDir(), prepared!.file).startsWith('..')).toBe(true);
    expect(prepared!.file).toContain(join('node-127-'));
  });

  it('opens the database under Node 22 through nativeBinding: daemon, API write, reopen', (ctx) => {
    if (node22 === null) return ctx.skip(skipReason);
    if (!prepared?.ok) throw new Error(prepared?.reason ?? 'not prepared');
    const result = runProbe(node22, prepared.file);
    expect(result).toMatchObject({
      ok: true,
      abi: '127',
      health: { ok: true, sessions: 0 },
      steering: { status: 200, body: { enabled: true } },
      steeringStored: true,
    });
  });

  it('cannot open it under Node 22 with the tree binding: the binding is what makes it work', (ctx) => {
    if (node22 === null) return ctx.skip(skipReason);
    const result = runProbe(node22, '');
    expect(result.ok).toBe(false);
    expect(String(result.error)).toMatch(/NODE_MODULE_VERSION/);
  });

  it('leaves the tree binding to Node 20, which still opens the database without one', () => {
    const result = runProbe(process.execPath, '');
    expect(result).toMatchObject({
      ok: true,
      abi: process.versions.modules,
      steeringStored: true,
    });
  });
});
