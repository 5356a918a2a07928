/** The contract every per-vendor installer module fulfils (one module per vendor under ./vendors). */
import type { DoctorFinding, InstallScope } from '../../../common/api';
import type { Result } from '../../../common/result';
import type { VendorId } from '../../../common/vendors';
import type { OptIns } from './hook-target';
import type { InstallerErrorCode } from './installer-error';
import type { InstallerEnv } from './installer-env';
import type { InstallTarget } from './confined-path';
import type { ManifestInstall, Transport } from './manifest';

// Where an install goes is defined beside the paths it confines (no import circle through manifest).
export type { InstallTarget };

/** What we want installed: the opt-ins and the transport. */
export interface DesiredHooks extends OptIns {
  readonly transport: Transport;
}

/** One of our entries found in a config file. */
export interface OurEntry {
  readonly event: string;
  readonly entry: Readonly<Record<string, unknown>>;
}

/** How doctor exercises an installed entry the way the vendor would. */
export type HookProbe =
  | {
      readonly kind: 'http';
      readonly event: string;
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'command';
      readonly event: string;
      readonly command: string;
      readonly env: Readonly<Record<string, string>>;
      /** How the vendor runs it (`shell`: through sh; `argv`: split into words). Doctor runs neither: only the recorded launcher or script, without a shell (doctor-command.ts). */
      readonly runner: 'shell' | 'argv';
    };

/** What a vendor's warnings may look at. */
export interface WarningContext {
  readonly target: InstallTarget;
  /** The hooks being installed, or null for an uninstall. */
  readonly want: DesiredHooks | null;
  readonly env: InstallerEnv;
  readonly path: string;
  readonly before: string | null;
}

/** One vendor's installer. */
export interface VendorInstaller {
  readonly vendor: VendorId;
  readonly scopes: readonly InstallScope[];
  /** Supported transports, the default first. */
  readonly transports: readonly Transport[];
  /** True when the vendor asks the user to trust hooks again after their text changes. */
  readonly retrust: boolean;
  /** Executable names to look for on PATH. */
  readonly cliNames: readonly string[];
  /** The config file we edit for this target. */
  configPath(target: InstallTarget, env: InstallerEnv): string;
  /** The new file text with exactly our entries for `want` (null: none of ours); null result = no file. */
  edit(
    path: string,
    before: string | null,
    want: DesiredHooks | null,
    env: InstallerEnv,
  ): Result<string | null, InstallerErrorCode>;
  /** Our entries in a config text. */
  ourEntries(path: string, text: string | null): Result<OurEntry[], InstallerErrorCode>;
  /** True when a document holds nothing at all (so a file we created can be deleted at uninstall). */
  isEmptyDocument(text: string): boolean;
  /** How to exercise one of our entries. */
  probe(entry: OurEntry): HookProbe | null;
  /** Whether `want` uses the command launcher. */
  needsLauncher(want: DesiredHooks): boolean;
  /**
   * Seconds: the hook timeout written on the moments the permission loop may hold (with the
   * permission opt-in). The hook shim's deadline there is derived from it (shim-tables.ts).
   */
  readonly heldTimeoutS?: number;
  /** Known traps for this target. */
  warnings(context: WarningContext): Promise<string[]>;
  /**
   * Vendors with one file per hook event (Cline): the install's further files beside `configPath`,
   * edited, backed up, recorded and removed like it (see extra-files.ts).
   */
  extraFiles?(target: InstallTarget, env: InstallerEnv): readonly string[];
  /** The mode our written files get (executable hook scripts); absent: the file's own or 0644. */
  readonly fileMode?: number;
  /** Vendor-specific doctor findings for an install (beyond the synthetic hooks). */
  doctorChecks?(install: ManifestInstall, env: InstallerEnv): Promise<DoctorFinding[]>;
}
