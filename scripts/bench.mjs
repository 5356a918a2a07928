// `npm run bench [-- section...]`: runs every bench/*.bench.ts (or the named ones) in its own
// process with tsx, one after another, then prints the figures each reported on a `BENCH {json}`
// line. To add a section (hook round-trip, console render), drop a `bench/<name>.bench.ts` that
// calls `report(section, figures)` from bench/bench-lib.ts: it is picked up automatically.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { machineTicks, tickShare } from './machine-ticks.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.bench\.ts$/, '')))
  .sort();

if (files.length === 0) {
  process.stderr.write(`bench: no sections match ${wanted.join(', ')}\n`);
  process.exit(2);
}

// The sections run the daemon from the bundled CLI: build it from the current sources first.
const built = spawnSync(process.execPath, [join(root, 'scripts/build-cli.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (built.status !== 0) {
  process.stderr.write('bench: building the CLI failed\n');
  process.exit(1);
}

const results = [];
let failed = false;
for (const file of files) {
  process.stderr.write(`bench: running ${file}\n`);
  // Every section is followed by how busy the machine was and how much the hypervisor stole.
  const before = machineTicks();
  const run = spawnSync(process.execPath, ['--import', 'tsx', join('bench', file)], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 15 * 60_000,
  });
  for (const line of (run.stdout ?? '').split('\n')) {
    if (line.startsWith('BENCH ')) results.push(JSON.parse(line.slice(6)));
    else if (line.trim() !== '') process.stdout.write(`${line}\n`);
  }
  const after = machineTicks();
  if (before !== null && after !== null && after.total > before.total) {
    results.push({
      section: `machine while ${file} ran (all cores)`,
      figures: { 'busy %': tickShare(before, after, 'busy'), 'stolen by the hypervisor %': tickShare(before, after, 'steal') },
    });
  }
  if (run.status !== 0) {
    failed = true;
    process.stderr.write(`bench: ${file} failed (${run.status ?? run.signal})\n`);
  }
}

for (const { section, figures } of results) {
  process.stdout.write(`\n${section}\n`);
  for (const [key, value] of Object.entries(figures))
    process.stdout.write(`  ${key.padEnd(34)} ${value}\n`);
}
process.exitCode = failed ? 1 : 0;
