/**
 * The hook shim the installer copies into `<dataDir>/bin`: a self-contained Node script (no
 * imports outside node:*) plus a POSIX launcher that finds a Node runtime. Living in the data
 * directory, it keeps working when the app is updated or moved, and its path (the command string
 * vendors see) never changes, so updates do not make Codex or Hermes ask for trust again.
 */
import { join } from 'node:path';
import { LAUNCHER_NAME } from './hook-target';
import type { HookRuntime, InstallerEnv } from './installer-env';
import { emptyOutputTable, heldMomentsTable } from './shim-tables';

/** File name of the Node script next to the launcher. */
export const SHIM_SCRIPT_NAME = `${LAUNCHER_NAME}.mjs`;

// Fail-open by construction: every path ends in finish(), which prints the vendor's empty reply
// (the EMPTY table, generated from the vendor adapters: nothing for Codex, whose output schemas are
// strict and whose no-op is empty stdout; \`{}\` for the others) and exits 0. HELD, the moments the
// daemon may hold, is generated from the adapters too (shim-tables.ts). The daemon's own "nothing to say" (an empty
// JSON object) is printed as that same empty reply. A stopped daemon refuses the
// loopback connection at once; a hung one is cut off by the deadline, far inside the vendor's
// hook timeout. Permission moments get a long deadline only when the permission loop is opted in,
// because then the daemon holds the reply while the operator answers.
const SCRIPT = String.raw`#!/usr/bin/env node
// AEP Companion hook shim, written by the installer (reinstall to refresh; edits are replaced).
// Reads a vendor hook payload on stdin, posts it to the companion daemon, prints the reply.
// Fail-open: on any problem it prints an empty reply and exits 0.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HELD = ${JSON.stringify(heldMomentsTable())};
const EMPTY = ${JSON.stringify(emptyOutputTable())};
const env = process.env;
const args = process.argv.slice(2);
let vendor = '';
let dataDir = env.AEP_COMPANION_DATA_DIR || '';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--data-dir') dataDir = args[++i] || '';
  else if (!vendor) vendor = args[i];
}
if (!dataDir) dataDir = dirname(dirname(fileURLToPath(import.meta.url)));
const empty = Object.hasOwn(EMPTY, vendor) ? EMPTY[vendor] : '{}';
let done = false;

function finish(out, report) {
  if (done) return;
  done = true;
  if (env.AEP_HOOK_DOCTOR === '1') process.stderr.write(JSON.stringify({ aepHookDoctor: report }) + '\n');
  process.stdout.write(out, () => process.exit(0));
}
process.on('uncaughtException', (e) => finish(empty, { error: String((e && e.message) || e) }));

function readText(file) {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function baseUrl() {
  if (env.AEP_COMPANION_URL) return env.AEP_COMPANION_URL;
  try {
    const info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8'));
    if (info && typeof info.url === 'string') return info.url;
  } catch {
    // No running daemon recorded: use the default port.
  }
  return 'http://127.0.0.1:8787';
}

function send(body) {
  if (!Object.hasOwn(HELD, vendor)) return finish(empty, { error: 'unknown vendor: ' + vendor });
  let event = '';
  try {
    const payload = JSON.parse(body.toString('utf8'));
    event = String(payload.hook_event_name || payload.hookEventName || '');
  } catch {
    // Not JSON: the daemon answers that; the moment is just unknown here.
  }
  const held = env.AEP_PERMISSIONS === '1' && HELD[vendor].includes(event);
  const ms = Number(env.AEP_HOOK_TIMEOUT_MS) || (held ? 110000 : 5000);
  setTimeout(() => finish(empty, { error: 'no reply within ' + ms + ' ms' }), ms);
  let url;
  try {
    url = new URL('/hooks/' + vendor, baseUrl());
  } catch {
    return finish(empty, { error: 'bad daemon URL' });
  }
  if (env.AEP_INSTRUCT === '1') url.searchParams.set('instruct', '1');
  if (env.AEP_PERMISSIONS === '1') url.searchParams.set('permissions', '1');
  const token = env.AEP_HOOK_TOKEN || readText(join(dataDir, 'hook-token'));
  const headers = { 'content-type': 'application/json', 'content-length': body.length };
  if (token) headers.authorization = 'Bearer ' + token;
  const where = url.toString();
  const req = request(url, { method: 'POST', headers }, (res) => {
    const parts = [];
    res.on('data', (c) => parts.push(c));
    res.on('error', (e) => finish(empty, { url: where, error: e.message }));
    res.on('end', () => {
      const status = res.statusCode || 0;
      const text = Buffer.concat(parts).toString('utf8').trim();
      if (status < 200 || status >= 300) return finish(empty, { url: where, status, error: 'HTTP ' + status });
      if (text === '') return finish(empty, { url: where, status });
      let reply;
      try {
        reply = JSON.parse(text);
      } catch {
        return finish(empty, { url: where, status, error: 'reply is not JSON' });
      }
      if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) {
        return finish(empty, { url: where, status, error: 'reply is not a JSON object' });
      }
      if (Object.keys(reply).length === 0) return finish(empty, { url: where, status, reply: 'empty' });
      finish(text, { url: where, status, reply: 'json' });
    });
  });
  req.on('error', (e) => finish(empty, { url: where, error: e.code || e.message }));
  req.end(body);
}

const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('error', () => finish(empty, { error: 'cannot read stdin' }));
process.stdin.on('end', () => send(Buffer.concat(chunks)));
`;

function shellLiteral(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The POSIX launcher: the recorded runtime if it still exists, else `node` on PATH, else an empty reply. */
export function launcherScript(runtime: HookRuntime | undefined): string {
  const lines = [
    '#!/bin/sh',
    '# AEP Companion hook launcher, written by the installer (reinstall to refresh).',
    '# Runs the hook shim next to it with a Node runtime; fail-open when none is found.',
    `shim="\${0%/*}/${SHIM_SCRIPT_NAME}"`,
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
    { path: join(bin, SHIM_SCRIPT_NAME), text: SCRIPT, mode: 0o755 },
    { path: join(bin, LAUNCHER_NAME), text: launcherScript(env.runtime), mode: 0o755 },
  ];
}
