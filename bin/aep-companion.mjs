#!/usr/bin/env node
// Entry of the `aep-companion` command. Runs the bundled CLI; builds it first when missing
// (a fresh checkout), so `npm run serve` works straight after `npm install`. `hook` goes straight
// to the shim's own bundle (hook.cjs, requiring only node:*), and touches nothing else on its way.
// (The installed hook commands run the installer's CommonJS shim, not this ES-module entry.)
const hook = process.argv[2] === 'hook';
const entry = new URL(hook ? '../out/cli/hook.cjs' : '../out/cli/index.js', import.meta.url);

/** Builds out/cli when the entry is absent (a fresh checkout), then loads it. */
async function load() {
  try {
    return await import(entry.href);
  } catch (error) {
    // Only a missing bundle file is built; a missing package inside one is reported as it is.
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.url ?? '').includes('/out/cli/'))
      throw error;
    const { buildCli } = await import(new URL('../scripts/build-cli.mjs', import.meta.url).href);
    await buildCli();
    return import(entry.href);
  }
}

const cli = await load();
process.exitCode = hook ? await cli.run(process.argv.slice(3)) : await cli.main(process.argv.slice(2));
