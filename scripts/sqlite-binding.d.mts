import type { RuntimeAbi } from './sqlite-binding-path.mjs';
export {
  BINDING_FILE,
  defaultBindingRoot,
  preparedBindingFile,
  sqlitePackageDir,
  type RuntimeAbi,
} from './sqlite-binding-path.mjs';

/** A runtime as its binary reports it. */
export interface RuntimeInfo extends RuntimeAbi {
  readonly version: string;
}
/** Where Electron publishes the headers native modules build against. */
export const ELECTRON_HEADERS_URL: string;
/** What the runtime at `bin` is (an Electron binary is asked under ELECTRON_RUN_AS_NODE). */
export function probeRuntime(bin: string): RuntimeInfo;
/** The outcome of a preparation: the binding file, or a one-line reason. */
export type PrepareResult =
  | {
      readonly ok: true;
      readonly file: string;
      readonly built: boolean;
      readonly runtime: RuntimeInfo;
    }
  | { readonly ok: false; readonly reason: string };
/** Makes sure a binding for the runtime at `bin` exists (building it with node-gyp) and loads there. */
export function prepareSqliteBinding(
  bin: string,
  options?: {
    root?: string;
    headers?: string;
    headersUrl?: string;
    pkgDir?: string;
    onBuild?: (runtimeName: string) => void;
  },
): Promise<PrepareResult>;
