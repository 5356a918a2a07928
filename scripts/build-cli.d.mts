/** Bundles main/cli with esbuild into `outdir` (default out/cli): index.js and the hook shim's hook.js. */
export function buildCli(options?: { outdir?: string; logLevel?: 'silent' | 'error' | 'warning' | 'info' }): Promise<void>;
/** The hook shim's per-vendor tables, computed from the vendor adapters. */
export function hookTables(): Promise<{ held: Record<string, string[]>; empty: Record<string, string> }>;
