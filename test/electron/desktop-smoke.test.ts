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

/** Pids of live processes whose command line mentions `text` (Linux /proc; elsewhere none are seen). */
function processesMentioning(text: string): number[] {
  if (process.platform !== 'linux') return [];
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
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

      // Quit as the tray's Quit does; the daemon drains before the process exits.
      const exited = new Promise<number | null>((resolve) =>
        app!.process().once('exit', (code) => resolve(code)),
      );
      await app.evaluate(({ app: electronApp }) => electronApp.quit());
      expect(await exited).toBe(0);
      expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      expect(() => process.kill(pid, 0)).toThrow();
      // No helper process (renderer, GPU, utility) of this app outlives it.
      expect(processesMentioning(dataDir)).toEqual([]);
    });
  },
);
