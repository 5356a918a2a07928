/**
 * A launched agent on a machine where the user installed the companion's hooks the way the setup
 * wizard recommends (user scope, `--instruct`): the launch rig (launch-rig.ts) plus the real
 * `aep-companion install` run for the rig's temp HOME against the rig's data directory, so the
 * launched CLI fires the installed hooks into the same daemon that launched it.
 */
import { spawn } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { buildCompanionCli, type CompanionCli } from '../support/companion';
import type { StubServer } from '../support/model-stubs/stub-server';
import { ensureVendorCli, type CliVendor } from '../support/vendor-clis';
import { openTestRig, type LaunchRig } from './launch-rig';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the bundled `aep-companion` with `args` and `env` added; resolves with its exit and output. */
export function runCompanionCli(cli: CompanionCli, args: readonly string[], env: Readonly<Record<string, string>>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli.entry, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Installs the companion's hooks for `vendor` into the rig's HOME (user scope, `--instruct`), pointed at the rig's daemon. */
export async function installHooks(rig: LaunchRig, cli: CompanionCli, vendor: CliVendor): Promise<void> {
  const env = { HOME: rig.home, CODEX_HOME: join(rig.home, '.codex') };
  const installed = await runCompanionCli(cli, ['install', '--vendor', vendor, '--scope', 'user', '--instruct', '--data-dir', rig.d.dataDir], env);
  expect(installed.code, installed.out).toBe(0);
}

/**
 * Codex runs the user's hooks under its app-server only once the user trusted them (its own review
 * records `[hooks.state."<key>"] trusted_hash = "<hash>"` in config.toml); the test records that
 * answer for every hook Codex lists for `cwd`, the way the review does, after asking Codex itself
 * (`hooks/list` on its app-server) for the keys and hashes.
 */
export async function trustCodexHooks(rig: LaunchRig): Promise<number> {
  const { bin } = await ensureVendorCli('codex');
  const codexHome = join(rig.home, '.codex');
  const child = spawn(bin, ['app-server'], { env: { ...process.env, HOME: rig.home, CODEX_HOME: codexHome }, stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (m: Record<string, unknown>): void => void child.stdin.write(`${JSON.stringify(m)}\n`);
  const listed = new Promise<{ key: string; currentHash: string }[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('codex app-server did not list its hooks')), 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = JSON.parse(line) as { id?: number; result?: { data?: { hooks: { key: string; currentHash: string }[] }[] } };
      if (m.id === 1) {
        send({ method: 'initialized' });
        send({ id: 2, method: 'hooks/list', params: { cwds: [rig.cwd] } });
      } else if (m.id === 2) {
        clearTimeout(timer);
        resolve((m.result?.data ?? []).flatMap((d) => d.hooks));
      }
    });
  });
  send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'aep-test', version: '0' } } });
  try {
    const hooks = await listed;
    const lines = hooks.map((h) => `\n[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`);
    await appendFile(join(codexHome, 'config.toml'), lines.join(''));
    return hooks.length;
  } finally {
    child.kill();
  }
}

/** A test rig (launch-rig.ts `openTestRig`) with the hooks installed for `vendor`. */
export async function openHookedRig(vendor: CliVendor, stub: StubServer, cli: CompanionCli, claudeSettings: Record<string, unknown> = {}): Promise<LaunchRig> {
  const rig = await openTestRig(vendor, stub, claudeSettings);
  await installHooks(rig, cli, vendor);
  if (vendor === 'codex') expect(await trustCodexHooks(rig), 'Codex lists the installed hooks').toBeGreaterThan(0);
  return rig;
}

export { buildCompanionCli };
