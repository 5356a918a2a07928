/** The installer's public surface: detect, plan, apply, uninstall, doctor. */
export { detectVendor, detectVendors } from './detect';
export { planInstall } from './plan-install';
export { applyInstall } from './apply-install';
export { planUninstall, uninstall, type UninstallRequest } from './uninstall';
export { runDoctor, type DoctorRequest } from './doctor';
export type { InstallerEnv, InstallerHost, HookRuntime } from './installer-env';
export type { InstallerErrorCode } from './installer-error';
export type { AuditSink, InstallerAuditEntry } from './audit-sink';
export {
  readManifest,
  manifestPath,
  type Manifest,
  type ManifestInstall,
  type Transport,
} from './manifest';
export { launcherPath } from './hook-target';
export { hookPortMismatches, describeMismatch } from './hook-ports';
export { repairHookPorts } from './repair-hooks';
export { commandLineState, commandLineTarget, installCommandLine, removeCommandLine, type CommandLineTarget } from './command-line';
