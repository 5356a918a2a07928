/**
 * What doctor may run for an installed command hook: only the launcher the manifest recorded
 * (spawned directly, the entry's opt-ins as environment), or a hook script of ours the manifest
 * recorded for this install (Cline). A configured command that merely contains the launcher's
 * name is never run through a shell: it is reported instead.
 */
import type { VendorId } from '../../../common/vendors';
import { hookCommand, launcherPath, optInsOf, optInVars, quoteWord } from './hook-target';
import type { InstallerEnv } from './installer-env';
import type { Manifest, ManifestInstall } from './manifest';
import type { HookProbe, OurEntry } from './vendor-installer';

/** A program doctor may start: no shell, fixed arguments, the opt-ins as environment. */
export interface RunnableHook {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** The runnable program for one command probe, or why doctor refuses to run it. */
export function runnableHook(
  vendor: VendorId,
  probe: Extract<HookProbe, { kind: 'command' }>,
  entry: OurEntry,
  install: ManifestInstall,
  manifest: Manifest,
  env: InstallerEnv,
): { ok: true; value: RunnableHook } | { ok: false; reason: string } {
  const script = install.files.find((f) => quoteWord(f.path) === probe.command);
  if (script) return { ok: true, value: { file: script.path, args: [], env: {} } };
  const launcher = launcherPath(env);
  if (!(manifest.shim?.paths ?? []).includes(launcher))
    return {
      ok: false,
      reason: `the manifest records no hook launcher at ${launcher}, so doctor does not run \`${probe.command}\``,
    };
  const optIns = optInsOf({ ...entry.entry, env: { ...probe.env } });
  const expected = (['shell', 'argv', 'bare'] as const).map((style) =>
    hookCommand(vendor, env, optIns, style),
  );
  if (!expected.includes(probe.command))
    return {
      ok: false,
      reason: `\`${probe.command}\` is not the launcher the companion installed (${launcher}); doctor does not run it`,
    };
  return { ok: true, value: { file: launcher, args: [vendor], env: optInVars(optIns) } };
}

/**
 * The environment of a new login shell for the synthetic hook: the user's PATH and HOME but none
 * of the companion's own variables (no token, URL or data directory), so doctor proves what an
 * agent started from a clean shell gets.
 */
export function cleanShellEnv(base: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (!k.startsWith('AEP_')) out[k] = v;
  return out;
}
