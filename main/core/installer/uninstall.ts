/**
 * Uninstalling one vendor: exactly our entries go. When the file is still byte for byte what we
 * wrote, the text our entries were added to is restored (so a file we were the only change to
 * comes back identical, and a file we created disappears); otherwise our entries are removed
 * structurally and the user's later edits stay. The shim goes with the last install.
 */
import { readFile, rm, rmdir } from 'node:fs/promises';
import type { InstallPlan, InstallScope } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import type { VendorId } from '../../../common/vendors';
import { writeFileAtomic } from './atomic-write';
import { configRoot, confinementProblem } from './confined-path';
import { auditInstaller } from './audit-write';
import { saveBackup } from './backups';
import { readConfigText } from './config-file';
import {
  applyExtraUninstall,
  extraChanges,
  planExtraUninstall,
  type ExtraFile,
} from './extra-files';
import { resolveTarget } from './install-target';
import type { InstallerErrorCode } from './installer-error';
import type { InstallerEnv } from './installer-env';
import {
  findInstall,
  readManifest,
  sha256,
  withInstall,
  writeManifest,
  type Manifest,
  type ManifestFile,
} from './manifest';
import { withInstallerLock } from './installer-lock';
import { fileChange } from './plan-install';
import { VENDOR_INSTALLERS } from '../vendors/installers';

/** Which install to remove. */
export interface UninstallRequest {
  readonly vendor: VendorId;
  readonly scope: InstallScope;
  readonly project?: string;
}

interface ComputedUninstall {
  readonly plan: InstallPlan;
  readonly manifest: Manifest;
  readonly key: { vendor: VendorId; scope: InstallScope; project: string | null };
  readonly path: string;
  /** The root the write is confined to (see confined-path.ts). */
  readonly root: string;
  readonly before: string | null;
  readonly after: string | null;
  readonly file: ManifestFile | undefined;
  readonly shim: ReadonlyArray<{ path: string; before: string }>;
  /** The further files recorded for one-file-per-event vendors (extra-files.ts). */
  readonly extra: readonly ExtraFile[];
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

async function computeUninstall(
  request: UninstallRequest,
  env: InstallerEnv,
): Promise<Result<ComputedUninstall, InstallerErrorCode>> {
  const installer = VENDOR_INSTALLERS[request.vendor];
  const target = await resolveTarget(installer, request, false);
  if (!target.ok) return target;
  const manifest = await readManifest(env);
  if (!manifest.ok) return manifest;
  const key = { vendor: request.vendor, scope: target.value.scope, project: target.value.project };
  const record = findInstall(manifest.value, key.vendor, key.scope, key.project);
  const path = record?.files[0]?.path ?? installer.configPath(target.value, env);
  const file = record?.files.find((f) => f.path === path);
  const root = configRoot(path, target.value, env.home);
  const unsafe = await confinementProblem(path, root);
  if (unsafe) return err('unsafe-path', unsafe);
  const read = await readConfigText(path);
  if (!read.ok) return read;
  const before = read.value;

  let after: string | null = before;
  if (before !== null) {
    const untouched = file !== undefined && sha256(before) === file.writtenSha256;
    const restored = untouched ? await restoredBase(file) : undefined;
    if (restored !== undefined) {
      after = restored;
    } else {
      const stripped = installer.edit(path, before, null, env);
      if (!stripped.ok) return stripped;
      after = stripped.value;
      // A file we created and that holds nothing else now goes away entirely.
      if (after !== null && file?.base.backup === null && installer.isEmptyDocument(after))
        after = null;
    }
  }

  const extra = await planExtraUninstall(installer, record, env);
  if (!extra.ok) return extra;
  const remaining = withInstall(manifest.value, key, null);
  const shim: Array<{ path: string; before: string }> = [];
  if (remaining.installs.length === 0 && manifest.value.shim) {
    for (const shimPath of manifest.value.shim.paths) {
      const current = await readConfigText(shimPath);
      if (current.ok && current.value !== null)
        shim.push({ path: shimPath, before: current.value });
    }
  }
  const changes = [
    ...(after !== before ? [fileChange(path, before, after)] : []),
    ...extraChanges(extra.value),
    ...shim.map((s) => fileChange(s.path, s.before, null)),
  ];
  const plan: InstallPlan = {
    options: {
      vendor: request.vendor,
      scope: key.scope,
      ...(key.project ? { project: key.project } : {}),
      instruct: false,
      permissions: false,
    },
    changes,
    warnings:
      record || after !== before
        ? []
        : [`no AEP Companion hooks were found for this vendor in ${path}`],
    retrustRequired: false,
  };
  return ok({
    plan,
    manifest: manifest.value,
    key,
    path,
    root,
    before,
    after,
    file,
    shim,
    extra: extra.value,
  });
}

/** The plan of an uninstall (nothing written). */
export async function planUninstall(
  request: UninstallRequest,
  env: InstallerEnv,
): Promise<Result<InstallPlan, InstallerErrorCode>> {
  const computed = await computeUninstall(request, env);
  return computed.ok ? ok(computed.value.plan) : computed;
}

async function removeEmptyDirs(dirs: readonly string[]): Promise<void> {
  for (const dir of [...dirs].reverse()) {
    try {
      await rmdir(dir);
    } catch {
      // Not empty (the user put something there) or already gone: keep it.
    }
  }
}

/** Removes our entries for one vendor and returns the plan it applied. */
export function uninstall(
  request: UninstallRequest,
  env: InstallerEnv,
): Promise<Result<InstallPlan, InstallerErrorCode>> {
  return withInstallerLock(env, () => uninstallLocked(request, env));
}

async function uninstallLocked(
  request: UninstallRequest,
  env: InstallerEnv,
): Promise<Result<InstallPlan, InstallerErrorCode>> {
  const computed = await computeUninstall(request, env);
  if (!computed.ok) {
    auditInstaller(env, 'installer.uninstall', 'error', {
      vendor: request.vendor,
      scope: request.scope,
      error: computed.error.code,
      message: computed.error.message,
    });
    return computed;
  }
  const c = computed.value;
  try {
    // The extra files go first, so the config file's created folders are empty when it goes.
    await applyExtraUninstall(VENDOR_INSTALLERS[c.key.vendor], c.extra, env);
    if (c.after !== c.before && c.before !== null) {
      await saveBackup(env, c.key.vendor, c.path, c.before, 'original');
      if (c.after === null) await rm(c.path, { force: true });
      else await writeFileAtomic(c.path, c.after, undefined, c.root);
      if (c.after === null) await removeEmptyDirs(c.file?.createdDirs ?? []);
    }
    let next = withInstall(c.manifest, c.key, null);
    if (next.installs.length === 0 && next.shim) {
      for (const s of c.shim) await rm(s.path, { force: true });
      await removeEmptyDirs(next.shim.createdDirs);
      next = { ...next, shim: null };
    }
    await writeManifest(env, next);
  } catch (cause) {
    const message = `removing the ${c.key.vendor} hooks failed: ${(cause as Error).message}`;
    auditInstaller(env, 'installer.uninstall', 'error', {
      vendor: c.key.vendor,
      path: c.path,
      message,
    });
    return err('write-failed', message);
  }
  auditInstaller(env, 'installer.uninstall', c.plan.changes.length > 0 ? 'ok' : 'unchanged', {
    vendor: c.key.vendor,
    scope: c.key.scope,
    project: c.key.project,
    files: c.plan.changes.map((ch) => ch.path),
  });
  return ok(c.plan);
}
