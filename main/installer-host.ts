/**
 * What this process knows about the user's machine, for the installer: home, PATH, the vendors'
 * config-dir variables, enterprise policy files, the Node runtime for the hook launcher. Resolved
 * by the hosts (the CLI, `serve`, the Electron app), never inside main/core.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InstallerEnv, InstallerHost } from './core/installer';

/** Enterprise policy files the installer inspects, per platform. */
function managedPolicyFiles(platform: NodeJS.Platform): InstallerEnv['managedPolicyFiles'] {
  if (platform === 'win32')
    return { 'claude-code': ['C:\\Program Files\\ClaudeCode\\managed-settings.json'] };
  if (platform === 'darwin')
    return {
      'claude-code': ['/Library/Application Support/ClaudeCode/managed-settings.json'],
      codex: ['/etc/codex/requirements.toml'],
    };
  return {
    'claude-code': ['/etc/claude-code/managed-settings.json'],
    codex: ['/etc/codex/requirements.toml'],
  };
}

/**
 * This install's `bin/aep-companion.mjs`: two folders up from the bundle this module is built
 * into (out/cli for the command line and `serve`, out/main for the app), or three (a bundle under
 * .cache/, as tests build the command line); absent when not there.
 */
function cliEntry(): string | undefined {
  return ['../../bin/aep-companion.mjs', '../../../bin/aep-companion.mjs']
    .map((c) => fileURLToPath(new URL(c, import.meta.url)))
    .find((file) => existsSync(file));
}

/** The folder holding `bin/` when it is a git clone (its `.git` beside `package.json`); a packaged install has none. */
function checkoutOf(entry: string | undefined): string | undefined {
  if (!entry) return undefined;
  const root = dirname(dirname(entry));
  return existsSync(join(root, '.git')) && existsSync(join(root, 'package.json')) ? root : undefined;
}

/** The installer host of this process. */
export function installerHostFromProcess(): InstallerHost {
  const env = process.env;
  const entry = cliEntry();
  const checkout = checkoutOf(entry);
  return {
    home: homedir(),
    vars: {
      CLAUDE_CONFIG_DIR: env.CLAUDE_CONFIG_DIR,
      CODEX_HOME: env.CODEX_HOME,
      QWEN_HOME: env.QWEN_HOME,
      HERMES_HOME: env.HERMES_HOME,
    },
    path: env.PATH ?? '',
    platform: process.platform,
    runtime: { path: process.execPath, electron: Boolean(process.versions.electron) },
    managedPolicyFiles: managedPolicyFiles(process.platform),
    cliEntry: entry,
    ...(checkout ? { cliCheckout: checkout } : {}),
    ...(env.LOCALAPPDATA ? { localAppData: env.LOCALAPPDATA } : {}),
    processEnv: env,
  };
}

