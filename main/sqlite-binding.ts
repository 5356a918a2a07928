/**
 * Which SQLite binding this process loads, decided by the hosts (the Electron main process, `serve`,
 * the CLI) and passed to the core as `nativeBinding`. The tree's better-sqlite3 is built for the Node
 * that installed it; a runtime with another ABI (Electron's main process, or the hook and CLI run
 * by the app's runtime under ELECTRON_RUN_AS_NODE) uses the binding prepared for its ABI beside the
 * tree (scripts/sqlite-binding.mjs, at the first `npm start`), when one exists. The packaged app
 * has none: electron-builder rebuilt the package itself for Electron.
 */
import { existsSync } from 'node:fs';
import { preparedBindingFile, sqlitePackageDir } from '../scripts/sqlite-binding-path.mjs';

/** The binding prepared for a runtime (`process.versions`), or undefined: use the package's own. */
export function preparedSqliteBinding(
  versions: NodeJS.ProcessVersions,
  pkgDir?: string,
): string | undefined {
  let file: string;
  try {
    const dir = pkgDir ?? sqlitePackageDir(import.meta.url);
    file = preparedBindingFile(
      { runtime: versions.electron ? 'electron' : 'node', abi: versions.modules },
      { pkgDir: dir },
    );
  } catch {
    // better-sqlite3 not resolvable from here: opening the database reports that.
    return undefined;
  }
  return existsSync(file) ? file : undefined;
}

/** The binding for this process's runtime. */
export const sqliteBindingForThisProcess = (): string | undefined =>
  preparedSqliteBinding(process.versions);
