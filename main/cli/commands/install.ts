/**
 * `aep-companion install --vendor <v> [--scope user|project] [--project DIR] [--instruct]
 * [--permissions] [--transport http|command] [--dry-run] [--data-dir DIR]`: prints the plan (the
 * exact diff of every config file), then applies it unless --dry-run. Also the home of what the
 * three installer commands share: the installer environment resolved from this process.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { InstallOptions, InstallPlan } from '../../../common/api';
import type { Surface } from '../../../common/audit';
import { isVendorId, VENDOR_NAMES, VENDORS, type VendorId } from '../../../common/vendors';
import type { InstallerEnv } from '../../core/installer';
import { installerHostFromProcess } from '../../installer-host';
import { daemonUrl, helpOrRefusal, parseArgs, resolveDataDir } from '../locate-daemon';

const USAGE =
  'usage: aep-companion install --vendor <' +
  VENDORS.join('|') +
  '> [--scope user|project] [--project DIR] [--instruct] [--permissions] [--transport http|command] [--dry-run] [--data-dir DIR]\n';

/** The installer environment of a CLI command over one data directory. */
export function installerEnvFromProcess(dataDir: string, surface: Surface = 'cli'): InstallerEnv {
  // Hook commands name the launcher by absolute path: a relative --data-dir would break them.
  const absolute = resolve(dataDir);
  return {
    ...installerHostFromProcess(),
    dataDir: absolute,
    daemonUrl: daemonUrl(absolute),
    actor: 'operator',
    surface,
  };
}

/** Adds the audit log of the data directory to an environment; the close function releases it. */
export async function withAudit(
  env: InstallerEnv,
): Promise<{ env: InstallerEnv; close: () => void }> {
  try {
    const { openDb } = await import('../../core/store/open-db');
    const { AuditLog } = await import('../../core/store/audit-log');
    const { sqliteBindingForThisProcess } = await import('../../sqlite-binding');
    mkdirSync(env.dataDir, { recursive: true, mode: 0o700 });
    const db = openDb(join(env.dataDir, 'companion.db'), { nativeBinding: sqliteBindingForThisProcess() });
    return { env: { ...env, audit: new AuditLog(db) }, close: () => db.close() };
  } catch (e) {
    process.stderr.write(
      `aep-companion: the audit log is unavailable (${(e as Error).message}); continuing without it\n`,
    );
    return { env, close: () => undefined };
  }
}

/** Prints a plan: config diffs in full, the launcher files as one line each, then the warnings. */
export function printPlan(plan: InstallPlan, env: InstallerEnv, verb: string): void {
  const out = process.stdout;
  const scope = plan.options.scope === 'project' ? `project ${plan.options.project}` : 'user scope';
  out.write(`${verb} ${VENDOR_NAMES[plan.options.vendor]} hooks (${scope})\n`);
  if (plan.changes.length === 0) out.write('  nothing to change: already as requested\n');
  const bin = join(env.dataDir, 'bin');
  for (const change of plan.changes) {
    if (change.path.startsWith(bin)) {
      out.write(
        `  ${change.after === null ? 'remove' : change.before === null ? 'create' : 'update'} ${change.path} (hook launcher)\n`,
      );
    } else {
      out.write(`\n${change.diff}\n`);
    }
  }
  if (plan.warnings.length > 0)
    out.write(`\nwarnings:\n${plan.warnings.map((w) => `  ! ${w}`).join('\n')}\n`);
}

/** Reads `--vendor`, `--scope` and `--project` (relative to the working directory). */
export function parseTarget(
  options: Map<string, string | true>,
  command: string,
): { vendor: VendorId; scope: 'user' | 'project'; project?: string } | string {
  const vendor = options.get('vendor');
  if (!isVendorId(vendor))
    return `aep-companion ${command}: --vendor must be one of ${VENDORS.join(', ')}`;
  const scope = options.get('scope') ?? (options.has('project') ? 'project' : 'user');
  if (scope !== 'user' && scope !== 'project')
    return `aep-companion ${command}: --scope must be user or project`;
  const project = options.get('project');
  if (project === true) return `aep-companion ${command}: --project needs a directory`;
  if (scope === 'project' && project === undefined)
    return `aep-companion ${command}: --scope project needs --project DIR`;
  return { vendor, scope, ...(project !== undefined ? { project: resolve(project) } : {}) };
}

const KNOWN = new Set([
  'vendor',
  'scope',
  'project',
  'instruct',
  'permissions',
  'transport',
  'dry-run',
  'data-dir',
  'help',
]);

/** Runs `install`. */
export async function run(args: string[]): Promise<number> {
  const { positionals, options } = parseArgs(args, [
    'vendor',
    'scope',
    'project',
    'transport',
    'data-dir',
  ]);
  const refused = helpOrRefusal('install', { positionals, options }, KNOWN, USAGE);
  if (refused !== null) return refused;
  const target = parseTarget(options, 'install');
  if (typeof target === 'string') {
    process.stderr.write(`${target}\n${USAGE}`);
    return 2;
  }
  const transport = options.get('transport');
  if (transport !== undefined && transport !== 'http' && transport !== 'command') {
    process.stderr.write(`aep-companion install: --transport must be http or command\n${USAGE}`);
    return 2;
  }
  const installOptions: InstallOptions = {
    ...target,
    instruct: options.has('instruct'),
    permissions: options.has('permissions'),
    ...(transport ? { transport } : {}),
  };
  const dataDirFlag = options.get('data-dir');
  const baseEnv = installerEnvFromProcess(
    resolveDataDir(typeof dataDirFlag === 'string' ? dataDirFlag : undefined),
  );
  const { planInstall, applyInstall } = await import('../../core/installer');

  const plan = await planInstall(installOptions, baseEnv);
  if (!plan.ok) {
    process.stderr.write(`aep-companion install: ${plan.error.message}\n`);
    return 1;
  }
  printPlan(plan.value, baseEnv, options.has('dry-run') ? 'Would install' : 'Installing');
  if (options.has('dry-run')) return 0;
  if (plan.value.changes.length === 0) return 0;

  const { env, close } = await withAudit(baseEnv);
  try {
    const applied = await applyInstall(installOptions, env);
    if (!applied.ok) {
      process.stderr.write(`aep-companion install: ${applied.error.message}\n`);
      return 1;
    }
    process.stdout.write(
      `\ninstalled: ${applied.value.changes.length} file(s) written; backups and the manifest are in ${join(env.dataDir, 'installer')}\n`,
    );
    process.stdout.write(
      'check it with: aep-companion doctor --vendor ' + installOptions.vendor + '\n',
    );
    return 0;
  } finally {
    close();
  }
}
