#!/usr/bin/env node
// Entry of the `aep-companion` command. Runs the bundled CLI; builds it first when missing
// (a fresh checkout), so `npm run serve` works straight after `npm install`. `hook` goes straight
// to the shim's own bundle (hook.js), so a vendor's hook loads nothing else of the command line.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../out/cli/index.js', import.meta.url);
const hookEntry = new URL('../out/cli/hook.js', import.meta.url);
if (!existsSync(fileURLToPath(entry)) || !existsSync(fileURLToPath(hookEntry))) {
  const { buildCli } = await import(new URL('../scripts/build-cli.mjs', import.meta.url).href);
  await buildCli();
}
if (process.argv[2] === 'hook') {
  const { run } = await import(hookEntry.href);
  process.exitCode = await run(process.argv.slice(3));
} else {
  const { main } = await import(entry.href);
  process.exitCode = await main(process.argv.slice(2));
}
