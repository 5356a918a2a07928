/**
 * electron-builder.yml against the tree it packages: the native SQLite module and what loads it
 * stay outside the asar archive, the packaged app's resources are where main/electron/app-paths.ts
 * looks for them, `files` carries every entry point package.json names, and the packaged app
 * rebuilds its own SQLite for Electron (the bindings `npm start` prepares beside the tree are for
 * development and are not packaged).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { appPaths } from '../../../main/electron/app-paths';
import type { TrayIconName } from '../../../main/electron/tray-items';
import { preparedBindingFile } from '../../../scripts/sqlite-binding-path.mjs';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const require = createRequire(import.meta.url);

interface BuilderConfig {
  files: string[];
  asarUnpack: string[];
  extraResources: { from: string; to: string }[];
  npmRebuild: boolean;
  asar: boolean;
  linux: { icon: string };
  mac: { icon: string };
  win: { icon: string };
  electronFuses: { runAsNode: boolean };
}

const config = parse(readFileSync(join(repo, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  main: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};

/** Whether electron-builder's `files` list (patterns, `!` exclusions, last match wins) takes `path`. */
function packaged(path: string): boolean {
  let taken = false;
  for (const pattern of config.files) {
    if (pattern.startsWith('!')) {
      if (minimatch(path, pattern.slice(1), { dot: true })) taken = false;
    } else if (minimatch(path, pattern, { dot: true })) taken = true;
  }
  return taken;
}

const unpacked = (path: string): boolean =>
  config.asarUnpack.some((p) => minimatch(path, p, { dot: true }));

/** A package and the packages it needs at run time, transitively (as installed in the tree). */
function runtimeClosure(
  name: string,
  skip: ReadonlySet<string>,
  seen = new Set<string>(),
): Set<string> {
  if (seen.has(name) || skip.has(name)) return seen;
  seen.add(name);
  const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const dep of Object.keys(manifest.dependencies ?? {})) runtimeClosure(dep, skip, seen);
  return seen;
}

describe('electron-builder.yml', () => {
  it('keeps SQLite’s native module, and what loads it, outside the asar archive', () => {
    expect(config.asar).toBe(true);
    expect(Object.keys(pkg.dependencies)).toContain('better-sqlite3');
    // prebuild-install fetches binaries at install time only; the rest is loaded at run time.
    for (const name of runtimeClosure('better-sqlite3', new Set(['prebuild-install']))) {
      expect(unpacked(`node_modules/${name}/package.json`), `${name} must be in asarUnpack`).toBe(
        true,
      );
    }
    expect(unpacked('node_modules/better-sqlite3/build/Release/better_sqlite3.node')).toBe(true);
  });

  it('rebuilds native modules for Electron when packaging, so the packaged app needs no prepared binding', () => {
    expect(config.npmRebuild).toBe(true);
    // The bindings `npm start` prepares for development live under node_modules/.cache: never packaged.
    const prepared = relative(
      repo,
      preparedBindingFile(
        { runtime: 'electron', abi: '150' },
        { pkgDir: join(repo, 'node_modules', 'better-sqlite3') },
      ),
    );
    expect(prepared.startsWith(join('node_modules', '.cache'))).toBe(true);
    expect(packaged(prepared)).toBe(false);
  });

  it('packages every entry point package.json names, the built bundles and the CLI launcher', () => {
    for (const file of [
      pkg.main,
      ...Object.values(pkg.bin),
      'package.json',
      'out/preload/index.cjs',
      'out/renderer/index.html',
      'out/cli/index.js',
      'out/cli/hook.cjs',
    ])
      expect(packaged(file.replace(/^\.\//, '')), `${file} must be in files`).toBe(true);
    expect(packaged('out/main/index.js.map')).toBe(false);
    // The memory-map module is the headless daemon's alone (Electron's V8 sandbox refuses it).
    expect(packaged('node_modules/@riaskov/mmap-io/package.json')).toBe(false);
  });

  it('copies the resources the packaged app reads from process.resourcesPath, from files that exist', () => {
    const resourcesPath = '/packaged/resources';
    const names: TrayIconName[] = ['idle', 'active', 'attention'];
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const paths = appPaths({
        appPath: '/packaged/resources/app.asar',
        resourcesPath,
        packaged: true,
        platform,
      });
      for (const file of [paths.appIcon, ...names.map((n) => paths.trayIcon(n))]) {
        const inResources = relative(resourcesPath, file);
        const entry = config.extraResources.find(
          (r) => inResources === r.to || inResources.startsWith(`${r.to}/`),
        );
        expect(
          entry,
          `${inResources} is read from the resources but no extraResources entry puts it there`,
        ).toBeDefined();
        const source = join(repo, entry!.from, relative(entry!.to, inResources));
        expect(existsSync(source), `${source} (for ${inResources}) is missing`).toBe(true);
      }
    }
    for (const r of config.extraResources)
      expect(existsSync(join(repo, r.from)), `${r.from} is missing`).toBe(true);
    for (const icon of [config.linux.icon, config.mac.icon, config.win.icon])
      expect(existsSync(join(repo, icon)), icon).toBe(true);
  });

  it('keeps runAsNode, which the hook launcher uses to run the shim with the app’s own runtime', () => {
    expect(config.electronFuses.runAsNode).toBe(true);
  });
});
