/** Writes that never leave a half-written config behind: temp file in the same directory, then rename. */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, parse } from 'node:path';
import { assertConfined } from './confined-path';

/** Creates missing parent directories and returns those it created, outermost first (for a clean uninstall). */
export async function ensureDir(dir: string): Promise<string[]> {
  const missing: string[] = [];
  let current = dir;
  for (;;) {
    try {
      await stat(current);
      break;
    } catch {
      missing.unshift(current);
      const parent = dirname(current);
      if (parent === current) break;
      current = parent;
    }
  }
  if (missing.length > 0) await mkdir(dir, { recursive: true });
  return missing;
}

/**
 * Replaces `path` with `text` atomically. A symlinked config (dotfile managers) is written
 * through to its target so the link survives, but only while every link stays inside `root`
 * (default: the file's own folder); otherwise a `ConfinementError` is thrown and nothing is
 * written. The original file mode is kept.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  mode?: number,
  root: string = dirname(path),
): Promise<void> {
  await assertConfined(path, root);
  let target = path;
  try {
    target = await realpath(path);
  } catch {
    // Absent file: write the path itself.
  }
  let keepMode = mode;
  if (keepMode === undefined) {
    try {
      keepMode = (await stat(target)).mode & 0o777;
    } catch {
      keepMode = undefined;
    }
  }
  const temp = join(
    dirname(target),
    `.${parse(target).base}.aep-${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  const handle = await open(temp, 'wx', keepMode ?? 0o644);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (keepMode !== undefined) await chmod(temp, keepMode);
    await rename(temp, target);
  } catch (cause) {
    await rm(temp, { force: true });
    throw cause;
  }
}
