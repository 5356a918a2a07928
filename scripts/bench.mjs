// `npm run bench [-- section...]`: runs every bench/*.bench.ts (or the named ones) in its own
// process with tsx, one after another, then prints the figures each reported on a `BENCH {json}`
// line. To add a section (hook round-trip, console render), drop a `bench/<name>.bench.ts` that
// calls `report(section, figures)` from bench/bench-lib.ts: it is picked up automatically.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

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

// The machine's CPU counters (/proc/stat, clock ticks; null elsewhere): on a virtual machine the
// hypervisor's steal is what makes two runs differ, so every section is followed by its share.
const ticks = () => {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: cpu.reduce((a, b) => a + b, 0), busy: cpu.reduce((a, b) => a + b, 0) - cpu[3] - cpu[4] - cpu[7], steal: cpu[7] };
  } catch {
    return null;
  }
};

const results = [];
let failed = false;
for (const file of files) {
  process.stderr.write(`bench: running ${file}\n`);
  const before = ticks();
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
  const after = ticks();
  if (before !== null && after !== null && after.total > before.total) {
    const share = (k) => Number(((100 * (after[k] - before[k])) / (after.total - before.total)).toFixed(1));
    results.push({
      section: `machine while ${file} ran (all cores)`,
      figures: { 'busy %': share('busy'), 'stolen by the hypervisor %': share('steal') },
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
