/** A runtime as far as native modules care: its kind and its ABI (`process.versions.modules`). */
export interface RuntimeAbi {
  readonly runtime: 'electron' | 'node';
  readonly abi: string;
}
/** File name of the binding inside its folder. */
export const BINDING_FILE: string;
/** The installed better-sqlite3 package folder (resolved from the module URL `from`). */
export function sqlitePackageDir(from?: string): string;
/** The folder under which prepared bindings live: `<node_modules>/.cache/aep-companion/sqlite`. */
export function defaultBindingRoot(pkgDir?: string): string;
/** The binding file for one runtime under `root` (default `defaultBindingRoot(pkgDir)`). */
export function preparedBindingFile(
  runtime: RuntimeAbi,
  options?: { root?: string; pkgDir?: string; platform?: string; arch?: string },
): string;
