/** The vendor installer table: every vendor the companion adapts has one module here. */
import type { VendorId } from '../../../../common/vendors';
import type { VendorInstaller } from '../vendor-installer';
import { claudeCode } from './claude-code';
import { cline } from './cline';
import { codex } from './codex';
import { hermes } from './hermes';
import { qwenCode } from './qwen-code';
import { vscode } from './vscode';

/** The installer of each vendor. */
export const VENDOR_INSTALLERS: Readonly<Record<VendorId, VendorInstaller>> = {
  'claude-code': claudeCode,
  codex,
  'qwen-code': qwenCode,
  vscode,
  hermes,
  cline,
};
