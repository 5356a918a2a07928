/** Backups of every config file before we change it, in `<dataDir>/installer/backups`. */
import { access } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { VendorId } from '../../../common/vendors';
import { ensureDir, writeFileAtomic } from './atomic-write';
import type { InstallerEnv } from './installer-env';
import { backupsDir } from './manifest';

/** Saves `text` as a backup of `path` and returns the backup's path. */
export async function saveBackup(
  env: InstallerEnv,
  vendor: VendorId,
  path: string,
  text: string,
  kind: 'original' | 'base',
): Promise<string> {
  const dir = backupsDir(env);
  await ensureDir(dir);
  const stamp = (env.now?.() ?? new Date()).toISOString().replace(/[:.]/g, '-');
  const safeName = basename(path).replace(/[^A-Za-z0-9._-]/g, '_');
  let file = join(dir, `${stamp}-${vendor}-${safeName}.${kind}`);
  for (let n = 1; await exists(file); n++)
    file = join(dir, `${stamp}-${vendor}-${safeName}.${n}.${kind}`);
  await writeFileAtomic(file, text, 0o600);
  return file;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
