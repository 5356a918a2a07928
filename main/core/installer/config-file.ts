/** Reading a vendor config file: absent is normal, unreadable is a clear error (never overwritten). */
import { readFile } from 'node:fs/promises';
import { err, ok, type Result } from '../../../common/result';
import type { InstallerErrorCode } from './installer-error';

/** Reads a text file; `null` when it does not exist, an `unreadable-config` error for anything else. */
export async function readConfigText(
  path: string,
): Promise<Result<string | null, InstallerErrorCode>> {
  try {
    return ok(await readFile(path, 'utf8'));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return ok(null);
    if (code === 'EISDIR')
      return err('unreadable-config', `${path} is a directory, not a config file`);
    return err('unreadable-config', `cannot read ${path}: ${(cause as Error).message}`);
  }
}
