/**
 * Applying an install: back up, write atomically (the launcher before the config that calls
 * it), and record in the manifest exactly what we wrote and the text our entries were added to.
 */
import { chmod } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { InstallOptions, InstallPlan } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import { ensureDir, writeFileAtomic } from './atomic-write';
import { ConfinementError, configRoot } from './confined-path';
import { auditInstaller } from './audit-write';
import { saveBackup } from './backups';
import { applyExtraFiles } from './extra-files';
import type { InstallerErrorCode } from './installer-error';
import type { InstallerEnv } from './installer-env';
import {
  findInstall,
  readManifest,
  sha256,
  withInstall,
  writeManifest,
  type ManifestFile,
} from './manifest';
import { withInstallerLock } from './installer-lock';
import { computeInstall, type ComputedInstall } from './plan-install';
import { shimFiles } from './shim-script';

/** The base our entries sit on: carried over while the file is as we left it, else recomputed. */
async function baseOf(
  c: ComputedInstall,
  env: InstallerEnv,
  previous: ManifestFile | undefined,
  originalBackup: () => Promise<string | null>,
): Promise<Result<ManifestFile['base'] & { carried: boolean }, InstallerErrorCode>> {
  if (previous && c.before !== null && sha256(c.before) === previous.writtenSha256)
    return ok({ ...previous.base, carried: true });
  const stripped = c.installer.edit(c.path, c.before, null, env);
  if (!stripped.ok) return stripped;
  const base = stripped.value;
  if (base === null || (c.before === null && base.trim() === ''))
    return ok({ backup: null, sha256: null, carried: false });
  const backup =
    base === c.before
      ? await originalBackup()
      : await saveBackup(env, c.installer.vendor, c.path, base, 'base');
  return ok({ backup, sha256: sha256(base), carried: false });
}

/** Applies an install (re-planned now, so it acts on the files as they are) and returns the plan it applied. */
export function applyInstall(
  options: InstallOptions,
  env: InstallerEnv,
): Promise<Result<InstallPlan, InstallerErrorCode>> {
  return withInstallerLock(env, () => applyLocked(options, env));
}

async function applyLocked(
  options: InstallOptions,
  env: InstallerEnv,
): Promise<Result<InstallPlan, InstallerErrorCode>> {
  const computed = await computeInstall(options, env);
  if (!computed.ok) {
    auditInstaller(env, 'installer.apply', 'error', {
      vendor: options.vendor,
      scope: options.scope,
      error: computed.error.code,
      message: computed.error.message,
    });
    return computed;
  }
  const c = computed.value;
  const manifest = await readManifest(env);
  if (!manifest.ok) return manifest;
  const previous = findInstall(
    manifest.value,
    c.plan.options.vendor,
    c.target.scope,
    c.target.project,
  );
  const previousFile = previous?.files.find((f) => f.path === c.path);

  let savedOriginal: string | null = null;
  const originalBackup = async (): Promise<string | null> => {
    if (c.before === null) return null;
    savedOriginal ??= await saveBackup(env, c.installer.vendor, c.path, c.before, 'original');
    return savedOriginal;
  };

  try {
    const base = await baseOf(c, env, previousFile, originalBackup);
    if (!base.ok) return base;

    let shimDirs: string[] = [];
    for (const { file } of c.shim) {
      shimDirs = [...shimDirs, ...(await ensureDir(dirname(file.path)))];
      await writeFileAtomic(file.path, file.text, file.mode);
      await chmod(file.path, file.mode);
    }
    let createdDirs = base.value.carried ? [...(previousFile?.createdDirs ?? [])] : [];
    if (c.after !== c.before && c.after !== null) {
      await originalBackup();
      createdDirs = [...createdDirs, ...(await ensureDir(dirname(c.path)))];
      await writeFileAtomic(c.path, c.after, undefined, configRoot(c.path, c.target, env.home));
    }

    const extraFiles = await applyExtraFiles(
      c.installer,
      c.path,
      c.extra,
      previous?.files ?? [],
      env,
    );
    const now = (env.now?.() ?? new Date()).toISOString();
    const entries = c.installer.ourEntries(c.path, c.after);
    const record = {
      vendor: c.plan.options.vendor,
      scope: c.target.scope,
      project: c.target.project,
      instruct: c.want.instruct,
      permissions: c.want.permissions,
      transport: c.want.transport,
      daemonUrl: env.daemonUrl,
      installedAt: previous?.installedAt ?? now,
      updatedAt: now,
      files: [
        {
          path: c.path,
          createdDirs,
          base: { backup: base.value.backup, sha256: base.value.sha256 },
          writtenSha256: sha256(c.after ?? ''),
          events: entries.ok ? [...new Set(entries.value.map((e) => e.event))] : [],
        },
        ...extraFiles,
      ],
    };
    let next = withInstall(
      manifest.value,
      { vendor: record.vendor, scope: record.scope, project: record.project },
      record,
    );
    if (c.installer.needsLauncher(c.want)) {
      const paths = shimFiles(env).map((f) => f.path);
      next = {
        ...next,
        shim: {
          paths: [...new Set([...(next.shim?.paths ?? []), ...paths])],
          createdDirs: [...(next.shim?.createdDirs ?? []), ...shimDirs],
        },
      };
    }
    await writeManifest(env, next);
  } catch (cause) {
    const message = `writing the ${c.plan.options.vendor} hooks failed: ${(cause as Error).message}`;
    if (cause instanceof ConfinementError) {
      auditInstaller(env, 'installer.apply', 'error', {
        vendor: c.plan.options.vendor,
        path: c.path,
        message,
      });
      return err('unsafe-path', cause.message);
    }
    auditInstaller(env, 'installer.apply', 'error', {
      vendor: c.plan.options.vendor,
      path: c.path,
      message,
    });
    return err('write-failed', message);
  }
  auditInstaller(env, 'installer.apply', c.plan.changes.length > 0 ? 'ok' : 'unchanged', {
    vendor: c.plan.options.vendor,
    scope: c.target.scope,
    project: c.target.project,
    instruct: c.want.instruct,
    permissions: c.want.permissions,
    transport: c.want.transport,
    files: c.plan.changes.map((ch) => ch.path),
    retrustRequired: c.plan.retrustRequired,
  });
  return ok(c.plan);
}
