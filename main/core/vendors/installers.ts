/** The vendor installer table: every vendor the companion adapts has one module here. */
import type { VendorId } from '../../../common/vendors';
import type { VendorInstaller } from '../installer/vendor-installer';
import { claudeCode } from './claude-code/install';
import { cline } from './cline/install';
import { codex } from './codex/install';
import { hermes } from './hermes/install';
import { qwenCode } from './qwen-code/install';
import { vscode } from './vscode/install';

/** The installer of each vendor. */
export const VENDOR_INSTALLERS: Readonly<Record<VendorId, VendorInstaller>> = {
  'claude-code': claudeCode,
  codex,
  'qwen-code': qwenCode,
  vscode,
  hermes,
  cline,
};
