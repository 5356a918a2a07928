// Where a SQLite binding prepared for one runtime lives (scripts/sqlite-binding.mjs prepares it;
// the hosts look it up through main/sqlite-binding.ts). No side effects: the Electron main bundle
// imports it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** File name of the binding inside its folder. */
export const BINDING_FILE = 'better_sqlite3.node';

/** The installed better-sqlite3 package folder (resolved from the module URL `from`). */
export function sqlitePackageDir(from = import.meta.url) {
  return dirname(createRequire(from).resolve('better-sqlite3/package.json'));
}

/** The folder under which prepared bindings live: `<node_modules>/.cache/aep-companion/sqlite`. */
export function defaultBindingRoot(pkgDir = sqlitePackageDir()) {
  return join(pkgDir, '..', '.cache', 'aep-companion', 'sqlite');
}

/**
 * The binding file for one runtime (`{ runtime: 'electron' | 'node', abi }`, `abi` being the
 * runtime's `process.versions.modules`) under `root`, keyed by better-sqlite3's version too.
 */
export function preparedBindingFile(
  runtime,
  { root, pkgDir = sqlitePackageDir(), platform = process.platform, arch = process.arch } = {},
) {
  const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  return join(
    root ?? defaultBindingRoot(pkgDir),
    `better-sqlite3-${version}`,
    `${runtime.runtime}-${runtime.abi}-${platform}-${arch}`,
    BINDING_FILE,
  );
}
