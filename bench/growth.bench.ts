/**
 * Growth, replay and search at 1,000,000 events (the sections are in growth-run.ts). The daemon
 * runs in the measuring process, so its RSS must be the daemon's and not the TypeScript loader's:
 * growth-run.ts is bundled with esbuild as the shipped command line is (packages external), and
 * the bundle runs under plain `node`. BENCH_GROWTH_HOOKS sets the number of hooks (default
 * 1,000,000); the run stops by itself when they and the replay and search sections are done.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
// Under node_modules so the bundle's packages (better-sqlite3, ws) resolve from it.
const dir = join(root, 'node_modules', '.cache');
mkdirSync(dir, { recursive: true });
const bundle = join(dir, `aep-growth-bench-${process.pid}.mjs`);
await build({
  absWorkingDir: root,
  entryPoints: ['bench/growth-run.ts'],
  outfile: bundle,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
try {
  const nodeArgs = process.env.BENCH_GROWTH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const run = spawnSync(process.execPath, [...nodeArgs, bundle], { cwd: root, stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(bundle, { force: true });
}
