/** Shared setup for the installer tests: a temp HOME and data dir, fixture copies, and a full install round trip. */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { InstallOptions, InstallPlan } from '../../../common/api';
import type { InstallerAuditEntry } from '../../../main/core/installer/audit-sink';
import {
  applyInstall,
  planInstall,
  readManifest,
  uninstall,
  type InstallerEnv,
} from '../../../main/core/installer';
import { buildHookShim } from '../../../scripts/build-cli.mjs';

/** The fixture folder of the installer tests. */
export const FIXTURES = fileURLToPath(new URL('../../fixtures/installer/', import.meta.url));

/** A temp environment; `audit` collects the rows written. */
export interface TestEnv {
  readonly root: string;
  readonly env: InstallerEnv;
  readonly audit: InstallerAuditEntry[];
  cleanup(): Promise<void>;
}

let bundle: Promise<string> | undefined;

/**
 * The hook shim bundle the installer installs, built once per test file into a temp directory
 * from the sources (the repository's out/ may be stale or not built yet).
 */
export function testHookBundle(): Promise<string> {
  bundle ??= (async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'aep-hook-bundle-'));
    process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
    await buildHookShim({ outdir });
    return join(outdir, 'hook.cjs');
  })();
  return bundle;
}

/** Makes a temp HOME, data dir and environment (never the machine's real configs). */
export async function makeTestEnv(overrides: Partial<InstallerEnv> = {}): Promise<TestEnv> {
  const root = await mkdtemp(join(tmpdir(), 'aep-installer-'));
  const home = join(root, 'home');
  const dataDir = join(root, 'data');
  await mkdir(home, { recursive: true });
  await mkdir(dataDir, { recursive: true });
  const audit: InstallerAuditEntry[] = [];
  const env: InstallerEnv = {
    home,
    dataDir,
    daemonUrl: 'http://127.0.0.1:8787',
    vars: {},
    path: '',
    processEnv: { PATH: process.env.PATH, HOME: home },
    audit: { append: (row) => audit.push(row) },
    surface: 'cli',
    hookBundle: await testHookBundle(),
    ...overrides,
  };
  return { root, env, audit, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** Reads a fixture as text. */
export function fixture(name: string): Promise<string> {
  return readFile(join(FIXTURES, name), 'utf8');
}

/** Writes a file, creating its folders. */
export async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** Reads a file, or null when it is absent. */
export async function textOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

/** Unwraps a successful Result or fails the test with its error. */
export function unwrap<T>(
  result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } },
): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** The contents of every backup file. */
export async function backupTexts(env: InstallerEnv): Promise<string[]> {
  const dir = join(env.dataDir, 'installer', 'backups');
  const names = await readdir(dir).catch(() => [] as string[]);
  return Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
}

/**
 * The full round trip on one config file: plan, apply (equal to the plan), re-apply (no change),
 * uninstall (byte-identical to `original`, absent when it was absent), backups present. Returns
 * the installed text for vendor-specific checks.
 */
export async function roundTrip(
  t: TestEnv,
  options: InstallOptions,
  configPath: string,
  original: string | null,
): Promise<{ installed: string; plan: InstallPlan }> {
  if (original !== null) await put(configPath, original);
  const plan = unwrap(await planInstall(options, t.env));
  const change = plan.changes.find((c) => c.path === configPath);
  expect(change, 'the plan changes the config file').toBeDefined();
  expect(change?.before).toBe(original);
  expect(change?.diff).toContain('@@');
  expect(await textOrNull(configPath), 'planning writes nothing').toBe(original);

  const applied = unwrap(await applyInstall(options, t.env));
  const installed = await textOrNull(configPath);
  expect(installed).toBe(change?.after);
  expect(applied.changes.map((c) => c.path)).toEqual(plan.changes.map((c) => c.path));

  const again = unwrap(await planInstall(options, t.env));
  expect(again.changes, 're-planning finds nothing to change').toEqual([]);
  const reapplied = unwrap(await applyInstall(options, t.env));
  expect(reapplied.changes).toEqual([]);
  expect(await textOrNull(configPath)).toBe(installed);

  if (original !== null)
    expect(await backupTexts(t.env), 'the original is backed up').toContain(original);
  const manifest = unwrap(await readManifest(t.env));
  expect(manifest.installs.map((i) => i.vendor)).toEqual([options.vendor]);

  const removed = unwrap(
    await uninstall(
      { vendor: options.vendor, scope: options.scope, project: options.project },
      t.env,
    ),
  );
  expect(removed.changes.some((c) => c.path === configPath)).toBe(true);
  expect(await textOrNull(configPath), 'uninstall restores the original byte for byte').toBe(
    original,
  );
  expect(unwrap(await readManifest(t.env)).installs).toEqual([]);
  return { installed: installed as string, plan };
}
