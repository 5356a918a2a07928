/**
 * What our hook entries point at (the launcher command or the daemon URL), how the opt-ins are
 * carried, and how our entries are recognised again: the launcher's file name and the
 * `/hooks/<vendor>` route on a loopback host are the ownership markers (no custom keys are added
 * to vendor entries, which some vendors reject).
 */
import { join } from 'node:path';
import type { VendorId } from '../../../common/vendors';
import type { InstallerEnv } from './installer-env';

/** File name of the hook launcher; its presence in a command marks the entry as ours. */
export const LAUNCHER_NAME = 'aep-companion-hook';

/** The environment variable HTTP hooks interpolate for the hook token (by reference, never the value). */
export const TOKEN_VAR = 'AEP_HOOK_TOKEN';

/** The opt-ins a hook entry carries. */
export interface OptIns {
  readonly instruct: boolean;
  readonly permissions: boolean;
}

/** The stable per-user launcher path inside the data directory. */
export function launcherPath(env: InstallerEnv): string {
  return join(env.dataDir, 'bin', LAUNCHER_NAME);
}

/** Quotes one word for POSIX shells and Hermes' shell-like splitter (only when it needs it). */
export function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_/.:=@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The opt-in variables as NAME=1 pairs, in a fixed order so the command string is stable. */
export function optInVars(optIns: OptIns): Record<string, string> {
  const vars: Record<string, string> = {};
  if (optIns.instruct) vars.AEP_INSTRUCT = '1';
  if (optIns.permissions) vars.AEP_PERMISSIONS = '1';
  return vars;
}

/**
 * The launcher command. `shell`: vendors that run the string through sh (VAR=1 prefix works);
 * `argv`: vendors that split it into argv without a shell (Hermes: `env VAR=1 …`);
 * `bare`: vendors with a per-entry `env` field (the opt-ins go there instead).
 */
export function hookCommand(
  vendor: VendorId,
  env: InstallerEnv,
  optIns: OptIns,
  style: 'shell' | 'argv' | 'bare',
): string {
  const base = `${quoteWord(launcherPath(env))} ${vendor}`;
  if (style === 'bare') return base;
  const pairs = Object.entries(optInVars(optIns)).map(([k, v]) => `${k}=${v}`);
  if (pairs.length === 0) return base;
  return style === 'argv' ? `env ${pairs.join(' ')} ${base}` : `${pairs.join(' ')} ${base}`;
}

/** The daemon hook route for a vendor with the opt-ins as query parameters. */
export function hookUrl(vendor: VendorId, env: InstallerEnv, optIns: OptIns): string {
  const url = new URL(`/hooks/${vendor}`, env.daemonUrl);
  if (optIns.instruct) url.searchParams.set('instruct', '1');
  if (optIns.permissions) url.searchParams.set('permissions', '1');
  return url.toString();
}

/** True when a command string runs our launcher. */
export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && command.includes(LAUNCHER_NAME);
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True when a URL is the companion's hook route for this vendor on a loopback host (any port). */
export function isOurUrl(url: unknown, vendor: VendorId): boolean {
  if (typeof url !== 'string') return false;
  try {
    const parsed = new URL(url);
    return LOOPBACK.has(parsed.hostname) && parsed.pathname === `/hooks/${vendor}`;
  } catch {
    return false;
  }
}

/** Reads the opt-ins back from an installed command, URL or entry env. */
export function optInsOf(entry: { command?: unknown; url?: unknown; env?: unknown }): OptIns {
  if (typeof entry.url === 'string') {
    try {
      const q = new URL(entry.url).searchParams;
      return { instruct: q.get('instruct') === '1', permissions: q.get('permissions') === '1' };
    } catch {
      return { instruct: false, permissions: false };
    }
  }
  const envField = (entry.env ?? {}) as Record<string, unknown>;
  const command = typeof entry.command === 'string' ? entry.command : '';
  return {
    instruct: envField.AEP_INSTRUCT === '1' || /(^|\s)AEP_INSTRUCT=1(\s|$)/.test(command),
    permissions: envField.AEP_PERMISSIONS === '1' || /(^|\s)AEP_PERMISSIONS=1(\s|$)/.test(command),
  };
}
