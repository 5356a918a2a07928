/**
 * `aep-companion steering on|off|status [--data-dir DIR]`: the steering kill switch. When a daemon
 * runs (AEP_COMPANION_URL, or daemon.json in the data directory) the flip goes through its /api so
 * it takes effect at once. The database is written directly only while this command holds the data
 * directory's lock (daemon.lock), which proves no daemon runs; a daemon that holds it but does not
 * answer (starting, or hung) gets a clear refusal, never a write behind its back. Every flip is
 * audited with actor 'operator' and surface 'cli'.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SteeringState } from '../../../common/api';
import {
  daemonUrl,
  operatorToken,
  parseArgs,
  recordedDaemonUrl,
  resolveDataDir,
} from '../locate-daemon';

const USAGE = 'usage: aep-companion steering on|off|status [--data-dir DIR]\n';

/** How the flip was made. */
export type FlipPath = 'api' | 'database';

/** The outcome of a flip or a status read. */
export interface SteeringOutcome {
  readonly code: number;
  readonly message: string;
  readonly path?: FlipPath;
}

/** Calls the running daemon's /api/steering; null when no daemon answers at `url`. */
async function viaApi(
  url: string,
  token: string,
  enabled: boolean | null,
): Promise<SteeringOutcome | null> {
  let res: Response;
  try {
    res = await fetch(new URL('/api/steering', url), {
      method: enabled === null ? 'GET' : 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: enabled === null ? undefined : JSON.stringify({ enabled, surface: 'cli' }),
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    return null;
  }
  const body = (await res.json().catch(() => ({}))) as Partial<SteeringState> & {
    error?: string;
    detail?: string;
  };
  if (!res.ok)
    return {
      code: 1,
      message: `the daemon refused: ${body.error ?? res.status}${body.detail ? ` (${body.detail})` : ''}`,
      path: 'api',
    };
  return { code: 0, message: `steering is ${body.enabled ? 'on' : 'off'}`, path: 'api' };
}

/** Writes (or reads) the setting in the database of a data directory with no running daemon. */
async function viaDatabase(dataDir: string, enabled: boolean | null): Promise<SteeringOutcome> {
  // Loaded here so the other commands never pay for the native module.
  const { openDb } = await import('../../core/store/open-db');
  const { SettingsRepo } = await import('../../core/store/settings-repo');
  const { AuditLog } = await import('../../core/store/audit-log');
  const { KillSwitch } = await import('../../core/steering/kill-switch');
  const { describeHolder, recordedHolder } = await import('../../core/store/daemon-lock');
  const { claimForCommand } = await import('../../core/daemon-record');
  const { sqliteBindingForThisProcess } = await import('../../sqlite-binding');
  const nativeBinding = sqliteBindingForThisProcess();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = claimForCommand(dataDir, `steering ${enabled === null ? 'status' : enabled ? 'on' : 'off'}`, nativeBinding);
  if (lock === null) {
    const holder = recordedHolder(dataDir);
    const why = holder.url !== null && holder.command === null ? `, which does not answer at ${holder.url}` : '';
    return {
      code: 1,
      message: `${dataDir} is held by ${describeHolder(holder)}${why}: nothing was changed; try again in a moment, or stop it first`,
      path: 'database',
    };
  }
  let db;
  try {
    db = openDb(join(dataDir, 'companion.db'), { nativeBinding });
  } catch (e) {
    lock.release();
    throw e;
  }
  try {
    const settings = new SettingsRepo(db);
    if (enabled === null)
      return {
        code: 0,
        message: `steering is ${settings.get('features.steering') ? 'on' : 'off'}`,
        path: 'database',
      };
    const audit = new AuditLog(db);
    const killSwitch = new KillSwitch(settings, (entry) => audit.append(entry));
    const result = killSwitch.set(enabled, { actor: 'operator', surface: 'cli' });
    killSwitch.close();
    if (!result.ok) return { code: 1, message: result.error.message, path: 'database' };
    return {
      code: 0,
      message: `steering is ${result.value.enabled ? 'on' : 'off'} (no daemon running: saved for its next start)`,
      path: 'database',
    };
  } finally {
    db.close();
    lock.release();
  }
}

/** Flips (true/false) or reads (null) the kill switch for a data directory. */
export async function steering(
  dataDir: string,
  enabled: boolean | null,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SteeringOutcome> {
  const explicit = env.AEP_COMPANION_URL;
  const recorded = recordedDaemonUrl(dataDir);
  if (explicit || recorded) {
    const token = operatorToken(dataDir, env);
    const answered = await viaApi(daemonUrl(dataDir, env), token, enabled);
    if (answered) return answered;
    // AEP_COMPANION_URL may name a daemon with another data directory: never write behind its back.
    if (explicit) return { code: 1, message: `no daemon answers at ${explicit}` };
  }
  try {
    return await viaDatabase(dataDir, enabled);
  } catch (error) {
    return { code: 1, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Runs the command line. */
export async function run(args: string[]): Promise<number> {
  const { positionals, options } = parseArgs(args, ['data-dir']);
  const verb = positionals[0] ?? 'status';
  if (positionals.length > 1 || !['on', 'off', 'status'].includes(verb)) {
    process.stderr.write(USAGE);
    return 2;
  }
  const flag = options.get('data-dir');
  const dataDir = resolveDataDir(typeof flag === 'string' ? flag : undefined);
  const outcome = await steering(dataDir, verb === 'status' ? null : verb === 'on');
  (outcome.code === 0 ? process.stdout : process.stderr).write(`${outcome.message}\n`);
  return outcome.code;
}
