/**
 * One writer at a time per data directory: the console (through the daemon) and the CLI may
 * both install, and interleaved manifest updates would lose what was written. A lock file with
 * a staleness limit, so a crashed writer never blocks the next one for long.
 */
import { open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { err, type Result } from '../../../common/result';
import { ensureDir } from './atomic-write';
import type { InstallerErrorCode } from './installer-error';
import type { InstallerEnv } from './installer-env';

const STALE_MS = 60_000;
const WAIT_MS = 5_000;
const POLL_MS = 50;

async function tryAcquire(file: string): Promise<boolean> {
  try {
    const handle = await open(file, 'wx');
    await handle.writeFile(String(process.pid));
    await handle.close();
    return true;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw cause;
    try {
      if (Date.now() - (await stat(file)).mtimeMs > STALE_MS) await rm(file, { force: true });
    } catch {
      // Released meanwhile: the next attempt takes it.
    }
    return false;
  }
}

/** Runs `fn` holding the installer lock of the data directory; `busy` when another writer keeps it. */
export async function withInstallerLock<T>(
  env: InstallerEnv,
  fn: () => Promise<Result<T, InstallerErrorCode>>,
): Promise<Result<T, InstallerErrorCode>> {
  const dir = join(env.dataDir, 'installer');
  await ensureDir(dir);
  const file = join(dir, '.lock');
  const deadline = Date.now() + WAIT_MS;
  while (!(await tryAcquire(file))) {
    if (Date.now() > deadline)
      return err(
        'busy',
        `another install or uninstall is running (${file}); try again in a moment`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return await fn();
  } finally {
    await rm(file, { force: true });
  }
}
