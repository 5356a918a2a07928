/**
 * Do the installed HTTP hooks still reach this daemon? HTTP hooks name an address; when the
 * daemon later listens elsewhere (8787 was taken, `serve --port`, the port setting changed) they
 * silently stop arriving. This finds them (from the manifest and the config files as they are
 * now) and words the warning an HTTP install gets (repair-hooks.ts reinstalls them). The
 * launcher transport needs none of this: it finds the daemon through daemon.json.
 */
import type { HookPortMismatch } from '../../../common/api';
import { DEFAULT_SETTINGS } from '../../../common/settings';
import { readConfigText } from './config-file';
import type { InstallerEnv } from './installer-env';
import { readManifest } from './manifest';
import { VENDOR_INSTALLERS } from '../vendors/installers';

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** True when a hook URL names the daemon at `daemonUrl` (same scheme and port; the host is loopback for our entries). */
export function sameDaemon(hookUrl: string, daemonUrl: string): boolean {
  try {
    const a = new URL(hookUrl);
    const b = new URL(daemonUrl);
    return a.protocol === b.protocol && portOf(a) === portOf(b);
  } catch {
    return false;
  }
}

/** Every installed HTTP hook that posts to another port than `env.daemonUrl`, one row per install and address. */
export async function hookPortMismatches(
  env: Pick<InstallerEnv, 'dataDir' | 'daemonUrl'>,
): Promise<HookPortMismatch[]> {
  const manifest = await readManifest(env);
  if (!manifest.ok) return [];
  const out: HookPortMismatch[] = [];
  for (const install of manifest.value.installs) {
    const installer = VENDOR_INSTALLERS[install.vendor];
    if (!installer) continue;
    for (const file of install.files) {
      const read = await readConfigText(file.path);
      const entries = read.ok ? installer.ourEntries(file.path, read.value) : null;
      if (!entries?.ok) continue;
      const seen = new Set<string>();
      for (const entry of entries.value) {
        const probe = installer.probe(entry);
        if (probe?.kind !== 'http' || sameDaemon(probe.url, env.daemonUrl)) continue;
        const origin = new URL(probe.url).origin;
        if (seen.has(origin)) continue;
        seen.add(origin);
        out.push({
          vendor: install.vendor,
          scope: install.scope,
          project: install.project ?? null,
          file: file.path,
          hookUrl: origin,
          daemonUrl: new URL(env.daemonUrl).origin,
        });
      }
    }
  }
  return out;
}

/** Says at start, once per install, which installed HTTP hooks miss this daemon (never throws). */
export async function warnHookPortMismatches(
  env: Pick<InstallerEnv, 'dataDir' | 'daemonUrl'>,
  warn: (message: string, fields: Record<string, unknown>) => void,
): Promise<void> {
  try {
    for (const m of await hookPortMismatches(env))
      warn(
        `${describeMismatch(m)}; reinstall them from the console's status bar (or see \`aep-companion doctor\`)`,
        { vendor: m.vendor, file: m.file, hookUrl: m.hookUrl, daemonUrl: m.daemonUrl },
      );
  } catch {
    // A check that cannot run says nothing; doctor reports the same in detail.
  }
}

/** One line per mismatch, for the start-up log and the CLI. */
export function describeMismatch(m: HookPortMismatch): string {
  const where = m.scope === 'project' ? `project ${m.project}` : 'user scope';
  return `the ${m.vendor} hooks in ${m.file} (${where}) post to ${m.hookUrl}, but the daemon listens on ${m.daemonUrl}: they do not arrive until they are reinstalled`;
}

/** The plan warning of an HTTP install: the hooks name this address, and what happens when it changes. */
export function httpPortWarning(daemonUrl: string): string {
  const url = new URL(daemonUrl);
  const port = Number(portOf(url));
  const usual = DEFAULT_SETTINGS['server.port'];
  const first =
    port === usual
      ? `HTTP hooks name this daemon's address, ${url.origin}.`
      : `This daemon listens on port ${port}, not the usual ${usual} (it was started with another --port, or ${usual} was taken): HTTP hooks installed now name ${url.origin}.`;
  return `${first} If the companion later listens on another port, these hooks stop arriving until they are reinstalled (the app, its status bar and \`aep-companion doctor\` say so and offer the reinstall). The default launcher transport finds the daemon on any port.`;
}
