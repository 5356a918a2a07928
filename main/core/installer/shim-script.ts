/**
 * The hook shim the installer copies into `<dataDir>/bin`: the command line's own hook bundle
 * (out/cli/hook.cjs, built by scripts/build-cli.mjs from main/cli/hook-entry.ts: one CommonJS file
 * requiring only node:*, posting over a bare loopback socket) plus a POSIX launcher that finds a
 * Node runtime. One implementation serves `aep-companion hook` and the installed command; run by
 * its launcher, the bundle is the installed shim (data directory from its own location, stderr
 * only under AEP_HOOK_DOCTOR). CommonJS because a vendor starts it for every hook, and Node's
 * ES-module loader alone costs an ES-module entry about a sixth of a `node -e 0` (`npm run bench
 * hooks`). Living in the data directory, it keeps working when the app is updated or moved, and its
 * path (the command string vendors see) never changes, so updates do not make Codex or Hermes ask
 * for trust again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAUNCHER_NAME } from './hook-target';
import { FAST_SCRIPT_NAME, fastShimScript } from './shim-fast';
import type { HookRuntime, InstallerEnv } from './installer-env';

/** File name of the Node script next to the launcher. */
export const SHIM_SCRIPT_NAME = `${LAUNCHER_NAME}.cjs`;

/**
 * Where the bundle is looked for, relative to this module: beside it (the command line's chunks in
 * out/cli, `npm run serve`), in ../cli (the app's out/main, also inside the packaged app.asar), and
 * in the repository's out/cli (the sources, as tests and benches run them).
 */
const BUNDLE_CANDIDATES = ['hook.cjs', '../cli/hook.cjs', '../../../out/cli/hook.cjs'];

/** The hook shim bundle to install: `env.hookBundle`, else the first of BUNDLE_CANDIDATES that exists. */
export function hookBundlePath(env: Pick<InstallerEnv, 'hookBundle'>): string {
  if (env.hookBundle) return env.hookBundle;
  const found = BUNDLE_CANDIDATES.map((c) => fileURLToPath(new URL(c, import.meta.url))).find(
    (file) => existsSync(file),
  );
  if (found === undefined)
    throw new Error(
      'the hook shim bundle out/cli/hook.cjs is missing (build it with npm run build:cli)',
    );
  return found;
}

/** The installed script: the bundle's text under a header, without its source-map reference. */
export function shimScript(env: Pick<InstallerEnv, 'hookBundle'>): string {
  const file = hookBundlePath(env);
  let bundle: string;
  try {
    bundle = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new Error(`cannot read the hook shim bundle ${file}: ${(cause as Error).message}`);
  }
  return [
    '#!/usr/bin/env node',
    '// AEP Companion hook shim, written by the installer (reinstall to refresh; edits are replaced).',
    '// Reads a vendor hook payload on stdin, posts it to the companion daemon, prints the reply.',
    '// Fail-open: on any problem it prints an empty reply and exits 0.',
    bundle.replace(/\n\/\/# sourceMappingURL=[^\n]*\s*$/, '\n'),
  ].join('\n');
}

function shellLiteral(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The POSIX launcher: the bash fast path where `/bin/bash` exists (unless AEP_HOOK_FAST=0), else
 * the Node shim with the recorded runtime if it still exists, else `node` on PATH, else an empty
 * reply.
 */
export function launcherScript(runtime: HookRuntime | undefined): string {
  const lines = [
    '#!/bin/sh',
    '# AEP Companion hook launcher, written by the installer (reinstall to refresh).',
    '# Runs the hook shim next to it with a Node runtime; fail-open when none is found.',
    `shim="\${0%/*}/${SHIM_SCRIPT_NAME}"`,
    // The fast path (shim-fast.ts) first, where bash is; it hands back with AEP_HOOK_FAST=0.
    `fast="\${0%/*}/${FAST_SCRIPT_NAME}"`,
    'if [ "${AEP_HOOK_FAST-}" != 0 ] && [ -x /bin/bash ] && [ -r "$fast" ]; then',
    '  BASH_ENV= exec /bin/bash "$fast" "$@"',
    'fi',
  ];
  if (runtime) {
    lines.push(`rt=${shellLiteral(runtime.path)}`, 'if [ -x "$rt" ]; then');
    if (runtime.electron) lines.push('  ELECTRON_RUN_AS_NODE=1', '  export ELECTRON_RUN_AS_NODE');
    lines.push('  exec "$rt" "$shim" "$@"', 'fi');
  }
  lines.push(
    'if command -v node >/dev/null 2>&1; then exec node "$shim" "$@"; fi',
    // No runtime at all: read the payload anyway (shell builtins only), so the agent's write
    // never hits a closed pipe, then answer with the empty reply.
    'while IFS= read -r _; do :; done',
    `[ "$1" = codex ] || printf '{}'`,
    'exit 0',
    '',
  );
  return lines.join('\n');
}

/** One file of the installed shim. */
export interface ShimFile {
  readonly path: string;
  readonly text: string;
  readonly mode: number;
}

/** The files that make up the installed shim, with their contents for this environment. */
export function shimFiles(env: InstallerEnv): ShimFile[] {
  const bin = join(env.dataDir, 'bin');
  return [
    { path: join(bin, SHIM_SCRIPT_NAME), text: shimScript(env), mode: 0o755 },
    { path: join(bin, LAUNCHER_NAME), text: launcherScript(env.runtime), mode: 0o755 },
    { path: join(bin, FAST_SCRIPT_NAME), text: fastShimScript(), mode: 0o755 },
  ];
}
