/**
 * Desktop smoke test: the real app (the built tree, Electron's own binary, SQLite through the
 * binding `npm start` prepares for Electron) on a temp data directory. The window opens on the
 * console, a screenshot is taken (test-results/desktop-smoke.png), the tray shows its menu, and
 * Quit leaves nothing running: no app process, no daemon.json, no listener. Runs wherever an
 * Electron binary and a display (or the Xvfb command) exist; elsewhere it skips, saying why.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, type ElectronApplication } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { TrayItem } from '../../main/electron/tray-items';
import { desktopRuntime } from './desktop-runtime';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const runtime = await desktopRuntime();
const skipReason = 'reason' in runtime ? runtime.reason : null;
if (skipReason !== null)
  process.stdout.write(`test/electron/desktop-smoke: skipped: ${skipReason}\n`);

/** The pids of `pid`'s descendants now (Linux /proc; elsewhere none are seen). */
function descendants(pid: number): number[] {
  if (process.platform !== 'linux') return [];
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // stat: "pid (comm) state ppid …"; comm may hold spaces, so fields are read after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const walk = (p: number): void => {
    for (const [child, ppid] of parent) {
      if (ppid !== p) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Whether a process with this pid still runs (a zombie counts as gone). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe.skipIf(skipReason !== null)(
  skipReason === null ? 'desktop smoke' : `desktop smoke (skipped: ${skipReason})`,
  () => {
    const root = mkdtempSync(join(tmpdir(), 'aep-desktop-smoke-'));
    const dataDir = join(root, 'data');
    let app: ElectronApplication | undefined;

    afterAll(async () => {
      if (app && app.process().exitCode === null) app.process().kill('SIGKILL');
      if (!('reason' in runtime)) runtime.stop();
      rmSync(root, { recursive: true, force: true });
    });

    it('starts, shows the console window and the tray, and quits with nothing left running', async () => {
      const desktop = runtime as Exclude<typeof runtime, { reason: string }>;
      expect(existsSync(join(repo, 'out', 'main', 'index.js')), 'build first: npm run build').toBe(
        true,
      );
      app = await _electron.launch({
        executablePath: desktop.bin,
        args: [repo, '--data-dir', dataDir, '--port', '0', '--skip-wizard'],
        cwd: repo,
        env: { ...desktop.env, AEP_COMPANION_INSPECT: '1' } as Record<string, string>,
      });
      const pid = app.process().pid!;

      const win = await app.firstWindow();
      await win.getByText('No sessions yet').first().waitFor();
      expect(await win.title()).toMatch(/AEP Companion/);
      mkdirSync(join(repo, 'test-results'), { recursive: true });
      const shot = join(repo, 'test-results', 'desktop-smoke.png');
      await win.screenshot({ path: shot });
      expect(statSync(shot).size).toBeGreaterThan(5_000);

      // The daemon inside the app answers where daemon.json says.
      const { url } = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as {
        url: string;
      };
      expect((await (await fetch(`${url}/healthz`)).json()) as unknown).toMatchObject({ ok: true });

      // The tray's menu, once its feed has read the daemon's state: no live sessions, the console, Quit.
      const trayLabels = async (): Promise<string[]> => {
        const items = await app!.evaluate(
          () =>
            (
              globalThis as unknown as { aepCompanionTray: () => { items: readonly TrayItem[] } }
            ).aepCompanionTray().items,
        );
        return items.flatMap((item) => ('label' in item ? [item.label] : []));
      };
      let labels = await trayLabels();
      for (let i = 0; i < 100 && !labels.includes('No live sessions'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        labels = await trayLabels();
      }
      expect(labels).toEqual(
        expect.arrayContaining(['No live sessions', 'Steering enabled', 'Open console', 'Quit']),
      );

      // The renderer, GPU and utility processes the app started: none may outlive it.
      const helpers = descendants(pid);
      if (process.platform === 'linux') expect(helpers.length).toBeGreaterThan(0);

      // Quit as the tray's Quit does; the daemon drains before the process exits.
      const exited = new Promise<number | null>((resolve) =>
        app!.process().once('exit', (code) => resolve(code)),
      );
      await app.evaluate(({ app: electronApp }) => electronApp.quit());
      expect(await exited).toBe(0);
      expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      expect(running(pid)).toBe(false);
      for (let i = 0; i < 50 && helpers.some(running); i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(helpers.filter(running)).toEqual([]);
    });
  },
);
