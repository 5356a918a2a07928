// Bundles the plain-Node command line (main/cli) into out/cli with esbuild.
// Commands load lazily (code splitting), so `aep-companion hook` starts without the daemon's weight.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Builds out/cli/index.js (or `outdir`, relative to the repository root); exported so
 * bin/aep-companion.mjs can build on first use and tests can bundle a private copy.
 */
export async function buildCli({ outdir = 'out/cli', logLevel = 'warning' } = {}) {
  await build({
    absWorkingDir: root,
    entryPoints: ['main/cli/index.ts'],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel,
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCli();
}
