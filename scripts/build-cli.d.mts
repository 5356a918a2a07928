/** Bundles main/cli with esbuild into `outdir` (default out/cli). */
export function buildCli(options?: { outdir?: string; logLevel?: 'silent' | 'error' | 'warning' | 'info' }): Promise<void>;
