/**
 * Entry of the hook shim's own bundle, out/cli/hook.cjs (scripts/build-cli.mjs): one CommonJS file
 * that requires only node:*. CommonJS because Node starts an ES-module entry measurably slower than
 * `node -e 0`, and a vendor starts the shim for every hook. The installer copies this bundle into
 * the data directory as `bin/aep-companion-hook.cjs` (main/core/installer/shim-script.ts), where
 * its launcher starts it directly: run that way, it is the installed shim (data directory: the
 * parent of its own folder unless told otherwise; stderr only under AEP_HOOK_DOCTOR). Loaded by
 * bin/aep-companion.mjs for `aep-companion hook`, it only exports the shim.
 */
import { dirname } from 'node:path';
import { emptyReplyFor, run } from './commands/hook';

export * from './commands/hook';

if (typeof module !== 'undefined' && require.main === module) {
  const args = process.argv.slice(2);
  // Fail-open even on a bug: the vendor's empty reply, exit 0.
  process.on('uncaughtException', (error) => {
    if (process.env.AEP_HOOK_DOCTOR === '1')
      process.stderr.write(`${JSON.stringify({ aepHookDoctor: { error: String(error?.message ?? error) } })}\n`);
    process.stdout.write(emptyReplyFor(args[0]), () => process.exit(0));
  });
  void run(args, { installedIn: dirname(__dirname) }).then((code) => {
    process.exitCode = code;
  });
}
