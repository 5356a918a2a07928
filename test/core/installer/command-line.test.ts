/**
 * The command-line launcher: written into ~/.local/bin (a temp HOME here), it runs this install's
 * bin/aep-companion.mjs for real; it never replaces an `aep-companion` it did not write; removing
 * it leaves nothing; the Windows variant is a .cmd in the per-user WindowsApps folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandLinePath, commandLineScript, directCommand, commandLineState, installCommandLine, removeCommandLine, type CommandLineTarget } from '../../../main/core/installer/command-line';
import type { InstallerAuditEntry } from '../../../main/core/installer/audit-sink';

const REPO = join(import.meta.dirname, '..', '..', '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function target(extra: Partial<CommandLineTarget> = {}): { t: CommandLineTarget; rows: InstallerAuditEntry[] } {
  const home = mkdtempSync(join(tmpdir(), 'aep-cmdline-'));
  dirs.push(home);
  const rows: InstallerAuditEntry[] = [];
  const t: CommandLineTarget = {
    home,
    platform: 'linux',
    path: `/usr/bin:${join(home, '.local', 'bin')}`,
    entry: join(REPO, 'bin', 'aep-companion.mjs'),
    runtime: { path: process.execPath, electron: false },
    audit: { append: (e) => rows.push(e) },
    surface: 'console',
    ...extra,
  };
  return { t, rows };
}

describe('command-line launcher', () => {
  it('installs into ~/.local/bin a launcher that runs this install, and removes it again', async () => {
    const { t, rows } = target();
    expect(commandLineState(t)).toMatchObject({ installed: 'absent', onPath: true, current: false });
    const done = await installCommandLine(t);
    expect(done.ok).toBe(true);
    const path = join(t.home, '.local', 'bin', 'aep-companion');
    expect(commandLineState(t)).toEqual({ path, entry: t.entry, installed: 'ours', current: true, onPath: true, direct: directCommand(t), checkout: null });
    expect(statSync(path).mode & 0o111).not.toBe(0);
    // The launcher runs the real command line of this checkout.
    const out = execFileSync(path, ['--help'], { encoding: 'utf8', env: { ...process.env, HOME: t.home } });
    expect(out).toContain('aep-companion');
    // Installing again changes nothing.
    expect((await installCommandLine(t)).ok).toBe(true);
    expect(rows.map((r) => `${r.action}:${r.outcome}`)).toEqual(['command-line.install:ok', 'command-line.install:unchanged']);
    const removed = await removeCommandLine(t);
    expect(removed.ok && removed.value.installed).toBe('absent');
    expect(existsSync(path)).toBe(false);
    expect(rows.at(-1)).toMatchObject({ action: 'command-line.uninstall', outcome: 'ok', surface: 'console' });
  });

  it('never replaces or removes an aep-companion it did not write', async () => {
    const { t } = target({ path: '/usr/bin' });
    const path = commandLinePath(t);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '#!/bin/sh\necho someone else\n');
    expect(commandLineState(t)).toMatchObject({ installed: 'other', onPath: false });
    const install = await installCommandLine(t);
    expect(!install.ok && install.error.code).toBe('not-ours');
    const remove = await removeCommandLine(t);
    expect(!remove.ok && remove.error.code).toBe('not-ours');
    expect(readFileSync(path, 'utf8')).toBe('#!/bin/sh\necho someone else\n');
  });

  it('refreshes a launcher of ours that runs another install', async () => {
    const { t } = target();
    await installCommandLine({ ...t, entry: '/old/place/bin/aep-companion.mjs' });
    expect(commandLineState(t)).toMatchObject({ installed: 'ours', current: false });
    await installCommandLine(t);
    expect(commandLineState(t).current).toBe(true);
  });

  it('quotes paths for the shell and runs Electron as Node; Windows gets a .cmd in WindowsApps', () => {
    const { t } = target({ entry: "/opt/it's here/bin/aep-companion.mjs", runtime: { path: '/opt/AEP Companion/aep-companion', electron: true } });
    expect(commandLineScript(t)).toContain(`exec env ELECTRON_RUN_AS_NODE=1 '/opt/AEP Companion/aep-companion' '/opt/it'\\''s here/bin/aep-companion.mjs' "$@"`);
    const w = target({ platform: 'win32', home: 'C:\\Users\\dev', localAppData: 'D:\\Local', path: 'C:\\Windows;d:\\local\\microsoft\\windowsapps\\', entry: 'C:\\app\\bin\\aep-companion.mjs' }).t;
    expect(commandLinePath(w)).toBe('D:\\Local\\Microsoft\\WindowsApps\\aep-companion.cmd');
    expect(commandLineScript(w)).toContain('"C:\\app\\bin\\aep-companion.mjs" %*');
    expect(commandLineScript(w)).toContain('\r\n');
    expect(commandLineState(w).onPath).toBe(true);
  });

  it('says how a terminal runs this install without the launcher, and names a source checkout only when there is one', () => {
    const { t } = target({ runtime: { path: '/usr/bin/node', electron: false }, checkout: REPO });
    expect(commandLineState(t)).toMatchObject({ direct: `/usr/bin/node ${join(REPO, 'bin', 'aep-companion.mjs')}`, checkout: REPO });
    // The direct command really runs the command line.
    const [runtime, entry] = [process.execPath, join(REPO, 'bin', 'aep-companion.mjs')];
    expect(directCommand({ ...t, runtime: { path: runtime, electron: false } }).split(' ')).toEqual([runtime, entry]);
    expect(execFileSync(runtime, [entry, '--help'], { encoding: 'utf8' })).toContain('aep-companion');
    // A packaged app: Electron as Node, no checkout, paths quoted.
    const packaged = target({ entry: '/opt/AEP Companion/resources/app.asar/bin/aep-companion.mjs', runtime: { path: '/opt/AEP Companion/aep-companion', electron: true } }).t;
    expect(commandLineState(packaged)).toMatchObject({
      direct: `ELECTRON_RUN_AS_NODE=1 '/opt/AEP Companion/aep-companion' '/opt/AEP Companion/resources/app.asar/bin/aep-companion.mjs'`,
      checkout: null,
    });
    const w = target({ platform: 'win32', home: 'C:\\Users\\dev', entry: 'C:\\Program Files\\AEP\\bin\\aep-companion.mjs', runtime: { path: 'C:\\Program Files\\AEP\\AEP Companion.exe', electron: true } }).t;
    expect(directCommand(w)).toBe('set ELECTRON_RUN_AS_NODE=1&& "C:\\Program Files\\AEP\\AEP Companion.exe" "C:\\Program Files\\AEP\\bin\\aep-companion.mjs"');
  });
});
