/**
 * The installer's manifest (`<dataDir>/installer/manifest.json`): exactly what we wrote, where,
 * and the text our entries were added to, so uninstall can remove only ours and restore the
 * original byte for byte when nobody touched the file since.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { InstallScope } from '../../../common/api';
import { isVendorId, type VendorId } from '../../../common/vendors';
import { err, ok, type Result } from '../../../common/result';
import { ensureDir, writeFileAtomic } from './atomic-write';
import { readConfigText } from './config-file';
import type { InstallerErrorCode } from './installer-error';
import type { InstallerEnv } from './installer-env';
import { isObject } from './json-document';

/** How our hooks reach the daemon. */
export type Transport = 'http' | 'command';

/** One config file we changed. */
export interface ManifestFile {
  readonly path: string;
  /** Directories we created for it, outermost first (removed at uninstall when empty). */
  readonly createdDirs: readonly string[];
  /** Backup of the text our entries were added to (`null`: the file did not exist), and its hash. */
  readonly base: { readonly backup: string | null; readonly sha256: string | null };
  /** Hash of what we last wrote. */
  readonly writtenSha256: string;
  /** The vendor events holding our entries. */
  readonly events: readonly string[];
}

/** One installed vendor at one scope. */
export interface ManifestInstall {
  readonly vendor: VendorId;
  readonly scope: InstallScope;
  readonly project: string | null;
  readonly instruct: boolean;
  readonly permissions: boolean;
  readonly transport: Transport;
  readonly daemonUrl: string;
  readonly installedAt: string;
  readonly updatedAt: string;
  readonly files: readonly ManifestFile[];
}

/** The whole manifest. */
export interface Manifest {
  readonly version: 1;
  readonly installs: readonly ManifestInstall[];
  /** The shim files and the directories created for them. */
  readonly shim: {
    readonly paths: readonly string[];
    readonly createdDirs: readonly string[];
  } | null;
}

/** Where the manifest lives. */
export function manifestPath(env: Pick<InstallerEnv, 'dataDir'>): string {
  return join(env.dataDir, 'installer', 'manifest.json');
}

/** Where backups go. */
export function backupsDir(env: InstallerEnv): string {
  return join(env.dataDir, 'installer', 'backups');
}

/** SHA-256 of a text, hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const EMPTY: Manifest = { version: 1, installs: [], shim: null };

/** Reads the manifest; absent is empty, unreadable or malformed is a clear error. */
export async function readManifest(
  env: Pick<InstallerEnv, 'dataDir'>,
): Promise<Result<Manifest, InstallerErrorCode>> {
  const path = manifestPath(env);
  const read = await readConfigText(path);
  if (!read.ok) return read;
  if (read.value === null) return ok(EMPTY);
  try {
    const value: unknown = JSON.parse(read.value);
    if (!isObject(value) || value.version !== 1 || !Array.isArray(value.installs))
      throw new Error('unexpected shape');
    const installs = (value.installs as unknown[]).filter(
      (i) => isObject(i) && isVendorId(i.vendor),
    ) as ManifestInstall[];
    return ok({ version: 1, installs, shim: (value.shim as Manifest['shim']) ?? null });
  } catch (cause) {
    return err(
      'corrupt-manifest',
      `the installer manifest ${path} is unreadable (${(cause as Error).message}); move it aside to continue`,
    );
  }
}

/** Writes the manifest atomically. */
export async function writeManifest(env: InstallerEnv, manifest: Manifest): Promise<void> {
  const path = manifestPath(env);
  await ensureDir(join(env.dataDir, 'installer'));
  await writeFileAtomic(path, `${JSON.stringify(manifest, null, 2)}\n`, 0o600);
}

/** The install record of one vendor at one scope (and project), if any. */
export function findInstall(
  manifest: Manifest,
  vendor: VendorId,
  scope: InstallScope,
  project: string | null,
): ManifestInstall | undefined {
  return manifest.installs.find(
    (i) => i.vendor === vendor && i.scope === scope && (i.project ?? null) === project,
  );
}

/** The manifest with one install record replaced (or removed, with `null`). */
export function withInstall(
  manifest: Manifest,
  key: { vendor: VendorId; scope: InstallScope; project: string | null },
  record: ManifestInstall | null,
): Manifest {
  const others = manifest.installs.filter(
    (i) =>
      !(i.vendor === key.vendor && i.scope === key.scope && (i.project ?? null) === key.project),
  );
  return { ...manifest, installs: record ? [...others, record] : others };
}
