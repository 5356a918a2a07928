/**
 * The binding choice per runtime (main/sqlite-binding.ts) and the Electron side of its preparation
 * (scripts/sqlite-binding.mjs) without an Electron binary: a stand-in that reports itself as
 * Electron 45 under ELECTRON_RUN_AS_NODE, as the real one does, and headers that cannot be
 * fetched. The build itself is proven with a real second runtime in test/vendors/sqlite-binding.test.ts.
 */
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { preparedSqliteBinding } from '../../../main/sqlite-binding';
import {
  preparedBindingFile,
  prepareSqliteBinding,
  sqlitePackageDir,
} from '../../../scripts/sqlite-binding.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'aep-sqlite-binding-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A binary that answers as Electron `version` (ABI `abi`) under ELECTRON_RUN_AS_NODE. */
function fakeElectron(version: string, abi: string): string {
  const dir = mkdtempSync(join(scratch, 'electron-'));
  const preload = join(dir, 'as-electron.cjs');
  writeFileSync(
    preload,
    `Object.defineProperty(process, 'versions', { value: { ...process.versions, electron: ${JSON.stringify(version)}, modules: ${JSON.stringify(abi)} } });\n`,
  );
  const bin = join(dir, 'electron');
  writeFileSync(
    bin,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} -r ${JSON.stringify(preload)} "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return bin;
}

/** A loopback URL nothing listens on (a port bound, then freed). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/headers`;
}

describe.skipIf(process.platform === 'win32')('preparing SQLite for Electron', () => {
  it('says in one line why, without a stack, when Electron’s headers cannot be fetched, and builds nothing', async () => {
    const bin = fakeElectron('45.5.0', '150');
    const root = join(scratch, 'offline');
    const url = await deadUrl();
    let built = false;
    const result = await prepareSqliteBinding(bin, {
      root,
      headersUrl: url,
      onBuild: () => (built = true),
    });
    expect(result.ok).toBe(false);
    const reason = (result as { reason: string }).reason;
    expect(reason).toContain('SQLite cannot be prepared for Electron 45.5.0');
    expect(reason).toContain(url);
    expect(reason).not.toContain('\n');
    expect(reason).not.toMatch(/\bat .+:\d+:\d+/);
    expect(built).toBe(false);
    // No binding was left behind for the host to pick up.
    expect(readdirSync(root)).toEqual(['headers']);
  });

  it('reuses a binding already prepared for the runtime once it loads there', async () => {
    // The tree's own binding stands for one prepared earlier: the stand-in loads it (it is Node 20).
    const bin = fakeElectron('45.5.0', '150');
    const root = join(scratch, 'prepared');
    const file = preparedBindingFile({ runtime: 'electron', abi: '150' }, { root });
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(join(sqlitePackageDir(), 'build', 'Release', 'better_sqlite3.node'), file);
    const result = await prepareSqliteBinding(bin, { root, headersUrl: await deadUrl() });
    expect(result).toMatchObject({
      ok: true,
      file,
      built: false,
      runtime: { runtime: 'electron', version: '45.5.0', abi: '150' },
    });
  });

  it('says so in one line when the runtime does not run at all', async () => {
    const result = await prepareSqliteBinding(join(scratch, 'no-such-electron'), {
      root: join(scratch, 'none'),
    });
    expect(result.ok).toBe(false);
    expect((result as { reason: string }).reason).not.toContain('\n');
  });
});

describe('the binding each runtime loads', () => {
  it('is the tree’s own build for a Node with no prepared binding, and for an Electron before npm start prepared one', () => {
    const pkgDir = join(scratch, 'pkg', 'node_modules', 'better-sqlite3');
    mkdirSync(pkgDir, { recursive: true });
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ version: '12.6.2' }));
    expect(preparedSqliteBinding({ ...process.versions }, pkgDir)).toBeUndefined();
    expect(
      preparedSqliteBinding({ ...process.versions, electron: '45.5.0', modules: '150' }, pkgDir),
    ).toBeUndefined();
  });

  it('is the one prepared beside the tree for that runtime’s ABI, and only that one', () => {
    const pkgDir = join(scratch, 'pkg2', 'node_modules', 'better-sqlite3');
    mkdirSync(pkgDir, { recursive: true });
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ version: '12.6.2' }));
    const electronFile = preparedBindingFile({ runtime: 'electron', abi: '150' }, { pkgDir });
    mkdirSync(dirname(electronFile), { recursive: true });
    writeFileSync(electronFile, '');
    expect(electronFile.startsWith(join(scratch, 'pkg2', 'node_modules', '.cache'))).toBe(true);
    expect(
      preparedSqliteBinding({ ...process.versions, electron: '45.5.0', modules: '150' }, pkgDir),
    ).toBe(electronFile);
    // Another Electron line (another ABI) and Node itself do not take it.
    expect(
      preparedSqliteBinding({ ...process.versions, electron: '46.0.0', modules: '151' }, pkgDir),
    ).toBeUndefined();
    expect(preparedSqliteBinding({ ...process.versions, modules: '150' }, pkgDir)).toBeUndefined();
  });
});
