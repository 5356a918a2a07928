/**
 * A launched agent on a machine where the user installed the companion's hooks the way the setup
 * wizard recommends (user scope, `--instruct`): the launch rig (launch-rig.ts) plus the real
 * `aep-companion install` run for the rig's temp HOME against the rig's data directory, so the
 * launched CLI fires the installed hooks into the same daemon that launched it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { buildCompanionCli, type CompanionCli } from '../support/companion';
import type { StubServer } from '../support/model-stubs/stub-server';
import type { CliVendor } from '../support/vendor-clis';
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

/** A test rig (launch-rig.ts `openTestRig`) with the hooks installed for `vendor`. */
export async function openHookedRig(vendor: CliVendor, stub: StubServer, cli: CompanionCli, claudeSettings: Record<string, unknown> = {}): Promise<LaunchRig> {
  const rig = await openTestRig(vendor, stub, claudeSettings);
  await installHooks(rig, cli, vendor);
  return rig;
}

export { buildCompanionCli };
