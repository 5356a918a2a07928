/** Finding a vendor CLI on the given PATH and asking its version, with a short timeout. */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter as hostDelimiter, join } from 'node:path';
import { childEnv, type InstallerEnv } from './installer-env';

/** The first executable of `names` on the environment's PATH, or null. */
export async function findOnPath(
  names: readonly string[],
  env: InstallerEnv,
): Promise<string | null> {
  if (!env.path) return null;
  const windows = (env.platform ?? process.platform) === 'win32';
  const suffixes = windows ? ['.exe', '.cmd', '.bat', ''] : [''];
  const dirs = env.path.split(windows ? ';' : hostDelimiter).filter((d) => d !== '');
  for (const dir of dirs) {
    for (const name of names) {
      for (const suffix of suffixes) {
        const candidate = join(dir, name + suffix);
        try {
          await access(candidate, constants.X_OK);
          return candidate;
        } catch {
          // Not here.
        }
      }
    }
  }
  return null;
}

/** `<cli> --version`, first non-empty line, or null on error or timeout. */
export function cliVersion(cli: string, env: InstallerEnv): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      cli,
      ['--version'],
      { timeout: env.versionTimeoutMs ?? 3000, env: childEnv(env), windowsHide: true },
      (error, stdout) => {
        if (error) return resolve(null);
        const line = stdout.split(/\r?\n/).find((l) => l.trim() !== '');
        resolve(line ? line.trim() : null);
      },
    );
  });
}
