/**
 * The further files of vendors with one hook file per event (Cline's hook scripts): planned, written,
 * backed up, recorded in the manifest and removed exactly like the config file. Each file holds
 * only ours (the vendor's `edit`); a file of the user's under the same name is the base we restore.
 */
import { chmod, readFile, rm, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileChange } from '../../../common/api';
import { ok, type Result } from '../../../common/result';
import { ensureDir, writeFileAtomic } from './atomic-write';
import { saveBackup } from './backups';
import { readConfigText } from './config-file';
import type { InstallerErrorCode } from './installer-error';
import type { InstallerEnv } from './installer-env';
import { sha256, type ManifestFile, type ManifestInstall } from './manifest';
import { unifiedDiff } from './unified-diff';
import type { DesiredHooks, InstallTarget, VendorInstaller } from './vendor-installer';

/** One further file: its text now and after the change (null: absent). */
export interface ExtraFile {
  readonly path: string;
  readonly before: string | null;
  readonly after: string | null;
  /** The manifest record of a previous install, when there is one. */
  readonly recorded?: ManifestFile;
}

const change = (f: ExtraFile): FileChange => ({
  path: f.path,
  before: f.before,
  after: f.after,
  diff: unifiedDiff(f.path, f.before, f.after),
});

/** The changes of a plan for the extra files. */
export const extraChanges = (files: readonly ExtraFile[]): FileChange[] =>
  files.filter((f) => f.after !== f.before).map(change);

/** The install's extra files with their new text (none for single-file vendors). */
export async function planExtraFiles(
  installer: VendorInstaller,
  target: InstallTarget,
  want: DesiredHooks,
  env: InstallerEnv,
): Promise<Result<ExtraFile[], InstallerErrorCode>> {
  const out: ExtraFile[] = [];
  for (const path of installer.extraFiles?.(target, env) ?? []) {
    const read = await readConfigText(path);
    if (!read.ok) return read;
    const edited = installer.edit(path, read.value, want, env);
    if (!edited.ok) return edited;
    out.push({ path, before: read.value, after: edited.value });
  }
  return ok(out);
}

/**
 * Writes the planned extra files (and gives the config file the vendor's mode) and returns their
 * manifest records. The base (a file of the user's under our name) is backed up once and carried
 * over while the file is as we left it.
 */
export async function applyExtraFiles(
  installer: VendorInstaller,
  configPath: string,
  files: readonly ExtraFile[],
  previous: readonly ManifestFile[],
  env: InstallerEnv,
): Promise<ManifestFile[]> {
  const records: ManifestFile[] = [];
  for (const f of files) {
    const prior = previous.find((p) => p.path === f.path);
    const carried =
      prior !== undefined && f.before !== null && sha256(f.before) === prior.writtenSha256;
    let base = carried
      ? prior.base
      : { backup: null as string | null, sha256: null as string | null };
    if (!carried && f.before !== null) {
      const stripped = installer.edit(f.path, f.before, null, env);
      const text = stripped.ok ? stripped.value : f.before;
      if (text !== null && text.trim() !== '')
        base = {
          backup: await saveBackup(env, installer.vendor, f.path, text, 'base'),
          sha256: sha256(text),
        };
    }
    let createdDirs = carried ? [...prior.createdDirs] : [];
    if (f.after !== null && f.after !== f.before) {
      if (f.before !== null) await saveBackup(env, installer.vendor, f.path, f.before, 'original');
      createdDirs = [...createdDirs, ...(await ensureDir(dirname(f.path)))];
      await writeFileAtomic(f.path, f.after, installer.fileMode, dirname(f.path));
    }
    if (installer.fileMode !== undefined && f.after !== null)
      await chmod(f.path, installer.fileMode);
    const entries = installer.ourEntries(f.path, f.after);
    records.push({
      path: f.path,
      createdDirs,
      base,
      writtenSha256: sha256(f.after ?? ''),
      events: entries.ok ? [...new Set(entries.value.map((e) => e.event))] : [],
    });
  }
  if (installer.fileMode !== undefined) {
    try {
      await chmod(configPath, installer.fileMode);
    } catch {
      // Nothing written there (an unchanged install of nothing): no mode to give.
    }
  }
  return records;
}

async function restoredBase(file: ManifestFile): Promise<string | null | undefined> {
  if (file.base.backup === null) return null;
  try {
    const text = await readFile(file.base.backup, 'utf8');
    return sha256(text) === file.base.sha256 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** What uninstalling does to the extra files recorded for an install (all files after the first). */
export async function planExtraUninstall(
  installer: VendorInstaller,
  record: ManifestInstall | undefined,
  env: InstallerEnv,
): Promise<Result<ExtraFile[], InstallerErrorCode>> {
  const out: ExtraFile[] = [];
  for (const file of record?.files.slice(1) ?? []) {
    const read = await readConfigText(file.path);
    if (!read.ok) return read;
    const before = read.value;
    let after: string | null = before;
    if (before !== null) {
      const untouched = sha256(before) === file.writtenSha256;
      const restored = untouched ? await restoredBase(file) : undefined;
      if (restored !== undefined) after = restored;
      else {
        const stripped = installer.edit(file.path, before, null, env);
        if (!stripped.ok) return stripped;
        after = stripped.value;
      }
    }
    out.push({ path: file.path, before, after, recorded: file });
  }
  return ok(out);
}

/** Applies a planned uninstall of the extra files (backup of what is removed, empty created folders go). */
export async function applyExtraUninstall(
  installer: VendorInstaller,
  files: readonly ExtraFile[],
  env: InstallerEnv,
): Promise<void> {
  const dirs: string[] = [];
  for (const f of files) {
    if (f.after === f.before || f.before === null) continue;
    await saveBackup(env, installer.vendor, f.path, f.before, 'original');
    if (f.after === null) await rm(f.path, { force: true });
    else await writeFileAtomic(f.path, f.after, undefined, dirname(f.path));
    dirs.push(...(f.recorded?.createdDirs ?? []));
  }
  for (const dir of [...new Set(dirs)].sort((a, b) => b.length - a.length)) {
    try {
      await rmdir(dir);
    } catch {
      // Not empty, or already gone: kept.
    }
  }
}
