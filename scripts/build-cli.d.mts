/** Bundles main/cli with esbuild into `outdir` (default out/cli): index.js and the hook shim's hook.cjs. */
export function buildCli(options?: { outdir?: string; logLevel?: 'silent' | 'error' | 'warning' | 'info' }): Promise<void>;
/** The hook shim's per-vendor tables, computed from the vendor adapters. */
export function hookTables(): Promise<{ held: Record<string, string[]>; heldMs: Record<string, number>; empty: Record<string, string> }>;
/** Builds only the hook shim's bundle, `<outdir>/hook.cjs` (default out/cli). */
export function buildHookShim(options?: { outdir?: string; logLevel?: 'silent' | 'error' | 'warning' | 'info' }): Promise<void>;
