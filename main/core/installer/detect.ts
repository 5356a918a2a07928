/** Detection: per vendor, where its user config is, whether its CLI is on PATH (and which version), and what of ours is installed. */
import type { VendorDetection } from '../../../common/api';
import { VENDORS, type VendorId } from '../../../common/vendors';
import { cliVersion, findOnPath } from './cli-probe';
import { readConfigText } from './config-file';
import { optInsOf } from './hook-target';
import type { InstallerEnv } from './installer-env';
import { findInstall, readManifest } from './manifest';
import { VENDOR_INSTALLERS } from '../vendors/installers';

/** Detects one vendor at user scope. */
export async function detectVendor(vendor: VendorId, env: InstallerEnv): Promise<VendorDetection> {
  const installer = VENDOR_INSTALLERS[vendor];
  const target = { scope: 'user' as const, project: null };
  const configPath = installer.configPath(target, env);
  const warnings: string[] = [];
  const [read, cliPath, manifest] = await Promise.all([
    readConfigText(configPath),
    findOnPath(installer.cliNames, env),
    readManifest(env),
  ]);
  const cli = cliPath ? await cliVersion(cliPath, env) : null;
  const text = read.ok ? read.value : null;
  if (!read.ok) warnings.push(read.error.message);
  if (!manifest.ok) warnings.push(manifest.error.message);

  const entries = installer.ourEntries(configPath, text);
  if (!entries.ok) warnings.push(entries.error.message);
  const found = entries.ok ? entries.value : [];
  const record = manifest.ok ? findInstall(manifest.value, vendor, 'user', null) : undefined;
  let installed: VendorDetection['installed'] = null;
  if (found.length > 0) {
    const optIns = record ?? optInsOf(found[0].entry);
    installed = { instruct: optIns.instruct, permissions: optIns.permissions };
  }
  if (record && entries.ok && found.length === 0) {
    warnings.push(
      `the manifest records our hooks in ${configPath}, but they are no longer there: install again to restore them`,
    );
  }
  warnings.push(
    ...(await installer.warnings({ target, want: null, env, path: configPath, before: text })),
  );
  return {
    vendor,
    configPath,
    configExists: text !== null,
    cliPath,
    cliVersion: cli,
    installed,
    warnings,
  };
}

/** Detects every vendor. */
export function detectVendors(env: InstallerEnv): Promise<VendorDetection[]> {
  return Promise.all(VENDORS.map((v) => detectVendor(v, env)));
}
