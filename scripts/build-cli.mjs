// Bundles the plain-Node command line (main/cli) into out/cli with esbuild.
// Commands load lazily (code splitting); `aep-companion hook` has an entry of its own (hook.cjs, one
// CommonJS file requiring only node:*), so the shim starts without the rest of the command line and
// without Node's ES-module loader.
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The hook shim's tables (`held`, `heldMs`, `empty` per vendor), computed from the vendor adapters by
 * main/core/installer/shim-tables.ts, as the installed launcher's are. The module is bundled to a
 * scratch file under node_modules/.cache (so its packages resolve), imported once, then removed.
 */
export async function hookTables() {
  const [out] = (
    await build({
      absWorkingDir: root,
      stdin: {
        contents:
          "import { emptyOutputTable, heldDeadlineTable, heldMomentsTable } from './main/core/installer/shim-tables';\n" +
          'export const tables = { held: heldMomentsTable(), heldMs: heldDeadlineTable(), empty: emptyOutputTable() };\n',
        resolveDir: root,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    })
  ).outputFiles;
  const dir = join(root, 'node_modules', '.cache');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `aep-hook-tables-${process.pid}-${Date.now()}.mjs`);
  writeFileSync(file, out.text);
  try {
    return (await import(pathToFileURL(file).href)).tables;
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Builds out/cli/index.js and out/cli/hook.cjs (or into `outdir`, relative to the repository root);
 * exported so bin/aep-companion.mjs can build on first use and tests can bundle a private copy.
 */
export async function buildCli({ outdir = 'out/cli', logLevel = 'warning' } = {}) {
  const common = await commonOptions(outdir, logLevel);
  await Promise.all([
    build({
      ...common,
      entryPoints: ['main/cli/index.ts'],
      splitting: true,
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    }),
    buildHookShim({ outdir, logLevel }, common),
  ]);
}

/** Builds only the hook shim's bundle, `<outdir>/hook.cjs` (what the installer installs). */
export async function buildHookShim({ outdir = 'out/cli', logLevel = 'warning' } = {}, common = undefined) {
  await build({
    ...(common ?? (await commonOptions(outdir, logLevel))),
    entryPoints: { hook: 'main/cli/hook-entry.ts' },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
  });
}

async function commonOptions(outdir, logLevel) {
  return {
    absWorkingDir: root,
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel,
    define: { AEP_HOOK_TABLES: JSON.stringify(await hookTables()) },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCli();
}
