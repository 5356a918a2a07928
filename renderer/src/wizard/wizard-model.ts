/**
 * The setup wizard's pure parts: its steps, the operator's choices per vendor, the install
 * options those choices become, and how a unified diff reads line by line.
 */
import type { InstallOptions, InstallScope, VendorDetection } from '../../../common/api';
import { VENDORS, type VendorId } from '../../../common/vendors';

/** The steps, in order. */
export const STEPS = ['welcome', 'detect', 'choose', 'capture', 'steering', 'preview', 'apply', 'verify', 'done'] as const;
/** One step. */
export type StepId = (typeof STEPS)[number];

/** Short step names for the progress rail. */
export const STEP_LABELS: Readonly<Record<StepId, string>> = {
  welcome: 'Welcome',
  detect: 'Your agents',
  choose: 'Choose',
  capture: 'Capture',
  steering: 'Steering',
  preview: 'Preview',
  apply: 'Apply',
  verify: 'Verify',
  done: 'Done',
};

/** Vendors whose hooks can also call the daemon over HTTP directly (the launcher is the installer's default for every vendor). */
export const HTTP_VENDORS: readonly VendorId[] = ['claude-code', 'qwen-code'];

/** What the operator chose for one vendor. */
export interface VendorChoice {
  readonly selected: boolean;
  readonly instruct: boolean;
  readonly permissions: boolean;
  /** Null: the installer's default transport for the vendor. */
  readonly transport: 'http' | 'command' | null;
}

/** All choices: vendors, scope, project directory. */
export interface WizardChoices {
  readonly vendors: Readonly<Record<VendorId, VendorChoice>>;
  readonly scope: InstallScope;
  readonly project: string;
}

/** Initial choices: preselect the vendors found on this machine (CLI on PATH or a config file). */
export function initialChoices(detections: readonly VendorDetection[]): WizardChoices {
  const vendors = {} as Record<VendorId, VendorChoice>;
  for (const v of VENDORS) {
    const d = detections.find((x) => x.vendor === v);
    vendors[v] = {
      selected: Boolean(d && (d.cliPath || d.configExists || d.installed)),
      instruct: d?.installed?.instruct ?? false,
      permissions: d?.installed?.permissions ?? false,
      transport: null,
    };
  }
  return { vendors, scope: 'user', project: '' };
}

/** The vendors chosen, in table order. */
export function chosenVendors(choices: WizardChoices): VendorId[] {
  return VENDORS.filter((v) => choices.vendors[v].selected);
}

/** Why the scope choice cannot be used yet, or null when it can. */
export function scopeProblem(choices: WizardChoices): string | null {
  if (choices.scope === 'user') return null;
  const dir = choices.project.trim();
  if (!dir) return 'Enter the project directory.';
  if (!isAbsolutePath(dir)) return 'Use the full path of the project directory, e.g. /home/you/projects/app.';
  return null;
}

/** True for POSIX absolute paths and Windows drive or UNC paths. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

/** The install options for one chosen vendor. */
export function installOptions(choices: WizardChoices, vendor: VendorId): InstallOptions {
  const c = choices.vendors[vendor];
  return {
    vendor,
    scope: choices.scope,
    ...(choices.scope === 'project' ? { project: choices.project.trim() } : {}),
    instruct: c.instruct,
    permissions: c.permissions,
    ...(c.transport ? { transport: c.transport } : {}),
  };
}

/** Returns the choices with one vendor's choice changed. */
export function updateVendor(choices: WizardChoices, vendor: VendorId, patch: Partial<VendorChoice>): WizardChoices {
  return { ...choices, vendors: { ...choices.vendors, [vendor]: { ...choices.vendors[vendor], ...patch } } };
}

/** One line of a unified diff, classified for display. */
export interface DiffLine {
  readonly kind: 'add' | 'del' | 'hunk' | 'ctx' | 'meta';
  readonly text: string;
}

/** Splits a unified diff into display lines, dropping the `Index:`/`====` banner. */
export function diffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  for (const text of diff.replace(/\n$/, '').split('\n')) {
    if (/^={5,}$/.test(text) || text.startsWith('Index: ')) continue;
    if (text.startsWith('+++') || text.startsWith('---')) out.push({ kind: 'meta', text });
    else if (text.startsWith('@@')) out.push({ kind: 'hunk', text });
    else if (text.startsWith('+')) out.push({ kind: 'add', text });
    else if (text.startsWith('-')) out.push({ kind: 'del', text });
    else if (text.startsWith('\\')) out.push({ kind: 'meta', text });
    else out.push({ kind: 'ctx', text });
  }
  return out;
}

/** Lines added and removed by a diff. */
export function diffStat(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of diffLines(diff)) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
  }
  return { added, removed };
}

/** True when a planned file is the companion's own hook launcher rather than the vendor's config. */
export function isLauncherFile(path: string): boolean {
  return /[\\/]bin[\\/]aep-companion-hook(\.cjs|\.mjs|\.cmd|\.ps1|\.bash|\.sh)?$/.test(path);
}

/** Whether a live hook check has seen a new hook: the vendor's last hook changed since the baseline. */
export function hookArrived(baseline: string | null | undefined, current: string | null | undefined): boolean {
  return Boolean(current) && current !== baseline;
}
