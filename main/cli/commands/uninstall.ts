/**
 * `aep-companion uninstall --vendor <v> [--scope user|project] [--project DIR] [--dry-run]
 * [--data-dir DIR]`: removes exactly our hook entries (from the manifest) and nothing else.
 * `aep-companion uninstall --command-line`: removes the `aep-companion` launcher the setup wizard
 * put on PATH (only when it is the companion's own).
 */
import { VENDORS } from '../../../common/vendors';
import { helpOrRefusal, parseArgs, resolveDataDir } from '../locate-daemon';
import { installerEnvFromProcess, parseTarget, printPlan, withAudit } from './install';

const USAGE = `usage: aep-companion uninstall --vendor <${VENDORS.join('|')}> [--scope user|project] [--project DIR] [--dry-run] [--data-dir DIR]\n       aep-companion uninstall --command-line [--data-dir DIR]\n`;
const KNOWN = new Set(['vendor', 'scope', 'project', 'dry-run', 'data-dir', 'help', 'command-line']);

/** Removes the command-line launcher (audited in the data directory's log). */
async function removeLauncher(dataDir: string): Promise<number> {
  const { commandLineState, commandLineTarget, removeCommandLine } = await import('../../core/installer');
  const { env, close } = await withAudit(installerEnvFromProcess(dataDir));
  try {
    const target = commandLineTarget(env);
    if (target === null) {
      process.stderr.write('aep-companion uninstall: this install has no bin/aep-companion.mjs to tell its launcher by\n');
      return 1;
    }
    const before = commandLineState(target);
    const done = await removeCommandLine(target);
    if (!done.ok) {
      process.stderr.write(`aep-companion uninstall: ${done.error.message}\n`);
      return 1;
    }
    process.stdout.write(before.installed === 'ours' ? `removed: ${done.value.path}\n` : `nothing to remove at ${done.value.path}\n`);
    return 0;
  } finally {
    close();
  }
}

/** Runs `uninstall`. */
export async function run(args: string[]): Promise<number> {
  const { positionals, options } = parseArgs(args, ['vendor', 'scope', 'project', 'data-dir']);
  const refused = helpOrRefusal('uninstall', { positionals, options }, KNOWN, USAGE);
  if (refused !== null) return refused;
  if (options.has('command-line')) {
    const flag = options.get('data-dir');
    return removeLauncher(resolveDataDir(typeof flag === 'string' ? flag : undefined));
  }
  const target = parseTarget(options, 'uninstall');
  if (typeof target === 'string') {
    process.stderr.write(`${target}\n${USAGE}`);
    return 2;
  }
  const dataDirFlag = options.get('data-dir');
  const baseEnv = installerEnvFromProcess(
    resolveDataDir(typeof dataDirFlag === 'string' ? dataDirFlag : undefined),
  );
  const { planUninstall, uninstall } = await import('../../core/installer');
  const plan = await planUninstall(target, baseEnv);
  if (!plan.ok) {
    process.stderr.write(`aep-companion uninstall: ${plan.error.message}\n`);
    return 1;
  }
  printPlan(plan.value, baseEnv, options.has('dry-run') ? 'Would remove' : 'Removing');
  if (options.has('dry-run') || plan.value.changes.length === 0) return 0;
  const { env, close } = await withAudit(baseEnv);
  try {
    const done = await uninstall(target, env);
    if (!done.ok) {
      process.stderr.write(`aep-companion uninstall: ${done.error.message}\n`);
      return 1;
    }
    process.stdout.write(`\nremoved: ${done.value.changes.length} file(s) changed\n`);
    return 0;
  } finally {
    close();
  }
}
