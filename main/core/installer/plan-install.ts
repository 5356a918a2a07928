/** Planning an install: the exact change per file as a unified diff, before anything is written. */
import type { FileChange, InstallOptions, InstallPlan } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import { VENDOR_NAMES } from '../../../common/vendors';
import { readConfigText } from './config-file';
import { extraChanges, planExtraFiles, type ExtraFile } from './extra-files';
import { configRoot, confinementProblem } from './confined-path';
import { httpPortWarning } from './hook-ports';
import { jsonEqual } from './json-document';
import { desiredHooks, resolveTarget } from './install-target';
import type { InstallerErrorCode } from './installer-error';
import type { InstallerEnv } from './installer-env';
import { shimFiles, type ShimFile } from './shim-script';
import { unifiedDiff } from './unified-diff';
import { VENDOR_INSTALLERS } from '../vendors/installers';
import type { DesiredHooks, InstallTarget, OurEntry, VendorInstaller } from './vendor-installer';

/** Everything an install needs, computed once and shared by plan and apply. */
export interface ComputedInstall {
  readonly plan: InstallPlan;
  readonly installer: VendorInstaller;
  readonly target: InstallTarget;
  readonly want: DesiredHooks;
  readonly path: string;
  readonly before: string | null;
  readonly after: string | null;
  readonly shim: ReadonlyArray<{ readonly file: ShimFile; readonly before: string | null }>;
  /** The further files of one-file-per-event vendors (extra-files.ts). */
  readonly extra: readonly ExtraFile[];
}

/** Builds a FileChange with its diff. */
export function fileChange(path: string, before: string | null, after: string | null): FileChange {
  return { path, before, after, diff: unifiedDiff(path, before, after) };
}

function hasNewEntries(before: readonly OurEntry[], after: readonly OurEntry[]): boolean {
  return after.some((a) => !before.some((b) => b.event === a.event && jsonEqual(b.entry, a.entry)));
}

/** Computes the install of one vendor without writing anything. */
export async function computeInstall(
  options: InstallOptions,
  env: InstallerEnv,
): Promise<Result<ComputedInstall, InstallerErrorCode>> {
  const installer = VENDOR_INSTALLERS[options.vendor];
  const target = await resolveTarget(installer, options, true);
  if (!target.ok) return target;
  const want = desiredHooks(installer, options);
  if (!want.ok) return want;
  const path = installer.configPath(target.value, env);
  const unsafe = await confinementProblem(path, configRoot(path, target.value, env.home));
  if (unsafe) return err('unsafe-path', unsafe);
  const read = await readConfigText(path);
  if (!read.ok) return read;
  const before = read.value;
  const edited = installer.edit(path, before, want.value, env);
  if (!edited.ok) return edited;
  const after = edited.value;

  const changes: FileChange[] = [];
  const shim: Array<{ file: ShimFile; before: string | null }> = [];
  if (installer.needsLauncher(want.value)) {
    for (const file of shimFiles(env)) {
      const current = await readConfigText(file.path);
      const text = current.ok ? current.value : null;
      if (text !== file.text) {
        shim.push({ file, before: text });
        changes.push(fileChange(file.path, text, file.text));
      }
    }
  }
  if (after !== before) changes.push(fileChange(path, before, after));
  const extra = await planExtraFiles(installer, target.value, want.value, env);
  if (!extra.ok) return extra;
  changes.push(...extraChanges(extra.value));

  const entriesBefore = installer.ourEntries(path, before);
  const entriesAfter = installer.ourEntries(path, after);
  const retrustRequired =
    installer.retrust &&
    entriesBefore.ok &&
    entriesAfter.ok &&
    after !== before &&
    hasNewEntries(entriesBefore.value, entriesAfter.value);

  const warnings = await installer.warnings({
    target: target.value,
    want: want.value,
    env,
    path,
    before,
  });
  if (retrustRequired) {
    warnings.unshift(
      `Applying this changes the hook commands ${VENDOR_NAMES[installer.vendor]} has trusted: it will ask you to trust them again before they run.`,
    );
  }
  if (want.value.transport === 'http') warnings.push(httpPortWarning(env.daemonUrl));
  if (want.value.instruct) {
    warnings.push(
      `Steering reaches ${VENDOR_NAMES[installer.vendor]} only while the steering kill switch is on (it is off by default).`,
    );
  }
  const plan: InstallPlan = {
    options: {
      vendor: options.vendor,
      scope: target.value.scope,
      ...(target.value.project ? { project: target.value.project } : {}),
      instruct: want.value.instruct,
      permissions: want.value.permissions,
      transport: want.value.transport,
    },
    changes,
    warnings,
    retrustRequired,
  };
  return ok({
    plan,
    installer,
    target: target.value,
    want: want.value,
    path,
    before,
    after,
    shim,
    extra: extra.value,
  });
}

/** The plan of an install: the exact changes as unified diffs, the warnings, and whether the vendor will ask for trust again. */
export async function planInstall(
  options: InstallOptions,
  env: InstallerEnv,
): Promise<Result<InstallPlan, InstallerErrorCode>> {
  const computed = await computeInstall(options, env);
  return computed.ok ? ok(computed.value.plan) : computed;
}
