#!/usr/bin/env node
// Entry of the `aep-companion` command. Runs the bundled CLI; builds it first when missing
// (a fresh checkout), so `npm run serve` works straight after `npm install`.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../out/cli/index.js', import.meta.url));
if (!existsSync(entry)) {
  const { buildCli } = await import(new URL('../scripts/build-cli.mjs', import.meta.url).href);
  await buildCli();
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
