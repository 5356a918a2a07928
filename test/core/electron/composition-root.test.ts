/**
 * The Electron composition root (main/index.ts) run in Node with a recording `electron` module
 * (fake-electron.ts) and the real daemon: launch options, data directory, the secure console
 * window on the daemon's origin, the bridge, the tray's kill switch, close-to-tray and a clean
 * quit that drains the daemon. The real Electron binary is exercised by test/electron/.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuditPage } from '../../../common/audit';
import type { BootstrapInfo } from '../../../common/bridge';
import * as fake from './fake-electron';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const repo = fileURLToPath(new URL('../../..', import.meta.url));
let root: string;
let dataDir: string;
let savedArgv: string[];
let consoleUrl: string;
let console: fake.FakeBrowserWindow;

const invokeFrom = (sender: fake.FakeBrowserWindow, channel: string, frameUrl: string, ...args: unknown[]): unknown => {
  const handler = fake.ipcHandlers.get(channel);
  if (handler === undefined) throw new Error(`no handler for ${channel}`);
  return handler({ senderFrame: { url: frameUrl }, sender: sender.webContents }, ...args);
};
const invoke = (channel: string, frameUrl: string, ...args: unknown[]): unknown => invokeFrom(console, channel, frameUrl, ...args);

const trayItem = (menu: fake.MenuTemplateItem[], label: string): fake.MenuTemplateItem => {
  const item = menu.find((i) => i.label === label);
  if (item === undefined) throw new Error(`no tray item ${label}: ${menu.map((i) => i.label).join(', ')}`);
  return item;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'aep-shell-root-'));
  dataDir = join(root, 'data');
  fake.paths.set('appData', join(root, 'appData'));
  fake.paths.set('home', root);
  fake.app.appPath = repo;
  savedArgv = process.argv;
  process.argv = ['/usr/lib/electron/electron', repo, '--data-dir', dataDir, '--port', '0', '--skip-wizard', '--no-sandbox'];
  await import('../../../main/index');
  const first = await fake.loads.next();
  console = first.win;
  consoleUrl = first.url;
});

afterAll(() => {
  process.argv = savedArgv;
  rmSync(root, { recursive: true, force: true });
});

describe('Electron composition root', () => {
  it('pins userData to the data directory before taking the single-instance lock', () => {
    const setPath = fake.calls.indexOf(`setPath:userData=${dataDir}`);
    expect(setPath).toBeGreaterThanOrEqual(0);
    expect(setPath).toBeLessThan(fake.calls.indexOf('requestSingleInstanceLock'));
    expect(fake.calls).toContain('setName:AEP Companion');
  });

  it('starts the daemon in the data directory and records it in daemon.json for the CLI', async () => {
    const info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { url: string; pid: number };
    expect(consoleUrl).toBe(`${info.url}/`);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${info.url}/healthz`)).status).toBe(200);
  });

  it('opens one console window with the secure settings, on the daemon origin', () => {
    const prefs = console.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false, preload: join(repo, 'out', 'preload', 'index.cjs') });
    expect(console.visible).toBe(true);
    expect(fake.windows).toHaveLength(1);
  });

  it('denies window.open and sends web links to the system browser', () => {
    expect(console.webContents.openHandler?.({ url: 'https://example.com/docs' })).toEqual({ action: 'deny' });
    expect(fake.opened).toContain('https://example.com/docs');
    expect(console.webContents.openHandler?.({ url: `${consoleUrl}#/audit` })).toEqual({ action: 'deny' });
    const nav = new fake.FakeEvent();
    console.webContents.emit('will-navigate', nav, 'file:///etc/passwd');
    expect(nav.defaultPrevented).toBe(true);
    const inApp = new fake.FakeEvent();
    console.webContents.emit('will-navigate', inApp, `${consoleUrl}#/inbox`);
    expect(inApp.defaultPrevented).toBe(false);
  });

  it('hands the console its daemon URL and a working operator token over the bridge, and only to its own origin', async () => {
    const info = (await invoke('bootstrap:get', consoleUrl)) as BootstrapInfo;
    expect(info).toMatchObject({ baseUrl: consoleUrl.replace(/\/$/, ''), skipWizard: true, platform: process.platform });
    const status = await fetch(`${info.baseUrl}/api/status`, { headers: { authorization: `Bearer ${info.operatorToken}` } });
    expect(status.status).toBe(200);
    expect(() => invoke('bootstrap:get', 'https://evil.example/')).toThrow(/refused/);
    expect(() => invoke('bootstrap:get', consoleUrl, 'extra')).toThrow('bootstrap:get takes no arguments');
  });

  it('validates bridge arguments before acting', () => {
    expect(() => invoke('shell:open-external', consoleUrl, 'file:///etc/passwd')).toThrow('http(s) URLs only');
    expect(() => invoke('notify:show', consoleUrl, { title: 42 })).toThrow(/title/);
    invoke('notify:show', consoleUrl, { title: 'Session ended', body: 'claude-code · web-app' });
    expect(fake.notifications.values).toContainEqual(expect.objectContaining({ title: 'Session ended', body: 'claude-code · web-app' }));
  });

  it('notifies a new permission prompt natively; a click opens its card in the console', async () => {
    const hookToken = readFileSync(join(dataDir, 'hook-token'), 'utf8').trim();
    const res = await fetch(`${consoleUrl}hooks/claude-code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hookToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 'n1', cwd: '/home/u/web-app', tool_name: 'Bash', tool_input: { command: 'ls' } }),
    });
    expect(res.status).toBe(200);
    const note = await fake.notifications.next((n) => n.title === 'Claude Code asks for permission');
    expect(note.body).toContain('Bash');
    // Linux notifications carry no buttons (Electron's actions are macOS only): the card answers.
    expect(note.actions).toEqual([]);
    note.click();
    expect(console.webContents.scripts.at(-1)).toMatch(/^window\.location\.hash = "#\/sessions\/n1\?event=\w+";$/);
    expect(console.visible).toBe(true);
  });

  it('shows the tray, and its Steering checkbox flips the kill switch after confirmation, audited as the tray', async () => {
    expect(fake.trays).toHaveLength(1);
    const tray = fake.trays[0];
    expect(tray.image.path).toMatch(/resources[\\/]tray[\\/]idle(-32)?\.png$/);
    expect(existsSync(tray.image.path)).toBe(true);
    const ready = await fake.trayMenus.next((m) => m.some((i) => i.label === 'No live sessions'));
    const checkbox = trayItem(ready, 'Steering enabled');
    expect(checkbox).toMatchObject({ type: 'checkbox', checked: false, enabled: true });

    // Cancelling the confirmation changes nothing.
    fake.dialogAnswers.push(1);
    checkbox.click?.();
    const info = (await invoke('bootstrap:get', consoleUrl)) as BootstrapInfo;
    const auth = { headers: { authorization: `Bearer ${info.operatorToken}` } };
    fake.dialogAnswers.push(0);
    const count = fake.trayMenus.values.length;
    checkbox.click?.();
    const on = await fake.trayMenus.next((m) => fake.trayMenus.values.indexOf(m) >= count && trayItem(m, 'Steering enabled').checked === true);
    expect(trayItem(on, 'Quick instruct…').enabled).toBe(true);
    const steering = (await (await fetch(`${info.baseUrl}/api/steering`, auth)).json()) as { enabled: boolean };
    expect(steering.enabled).toBe(true);
    const audit = (await (await fetch(`${info.baseUrl}/api/audit?surface=tray`, auth)).json()) as AuditPage;
    expect(audit.rows.map((r) => [r.action, r.surface, r.outcome])).toEqual([['steering.enabled', 'tray', 'ok']]);

    // Disabling is one click, no question asked.
    trayItem(on, 'Steering enabled').click?.();
    await fake.trayMenus.next((m) => fake.trayMenus.values.indexOf(m) > fake.trayMenus.values.indexOf(on) && trayItem(m, 'Steering enabled').checked === false);
  });

  it('opens the quick-instruct route in a second secure window, which the page can close', async () => {
    // With steering off the tray entry is disabled; the File menu's entry opens the same window.
    expect(trayItem(fake.trays[0].menu, 'Quick instruct… (steering is off)').enabled).toBe(false);
    const file = fake.applicationMenu.find((m) => m.label === '&File' || m.label === 'File');
    const count = fake.loads.values.length;
    file?.submenu?.find((i) => i.label === 'Quick Instruct…')?.click?.();
    const load = await fake.loads.next((l) => fake.loads.values.indexOf(l) >= count);
    expect(load.url).toBe(`${consoleUrl}#/quick-instruct`);
    expect(load.win).not.toBe(console);
    expect(load.win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    invokeFrom(load.win, 'window:close', consoleUrl);
    expect(load.win.isDestroyed()).toBe(true);
    expect(console.isDestroyed()).toBe(false);
  });

  it('keeps running in the tray when the console window is closed, and remembers its size', () => {
    console.close();
    expect(console.isDestroyed()).toBe(false);
    expect(console.visible).toBe(false);
    const state = JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8')) as Record<string, unknown>;
    expect(state).toMatchObject({ x: 40, y: 30, width: console.options.width, height: console.options.height, maximized: false });
    expect(fake.exits.values).toEqual([]);
  });

  it('shows the same window again on a second launch', () => {
    fake.app.emit('second-instance', {}, ['electron', repo]);
    expect(console.visible).toBe(true);
    expect(fake.windows.filter((w) => !w.isDestroyed())).toHaveLength(1);
  });

  it('shows a held permission request as the dock badge and in the tray, and clears it once it ends', async () => {
    const hookToken = readFileSync(join(dataDir, 'hook-token'), 'utf8').trim();
    const hook = (body: Record<string, unknown>) =>
      fetch(`${consoleUrl}hooks/claude-code?permissions=1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hookToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: 'b1', cwd: '/home/u/billing', ...body }),
      });
    const tray = fake.trays[0];
    const held = hook({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'git push' } });
    await vi.waitFor(() => expect(fake.app.badgeCount).toBe(1), { timeout: 10_000 });
    expect(tray.tooltip).toMatch(/, 1 request waiting, /);
    expect(tray.title).toBe(process.platform === 'darwin' ? '1' : '');
    // The session ends under the request: it is dismissed, the hook freed, the badge cleared.
    expect((await hook({ hook_event_name: 'SessionEnd', reason: 'exit' })).status).toBe(200);
    expect((await held).status).toBe(200);
    await vi.waitFor(() => expect(fake.app.badgeCount).toBe(0), { timeout: 10_000 });
    expect(tray.tooltip).not.toMatch(/waiting/);
  });

  it('drains the daemon on quit before the process exits', async () => {
    const url = consoleUrl.replace(/\/$/, '');
    fake.app.quit();
    expect(await fake.exits.next()).toBe(0);
    expect(console.isDestroyed()).toBe(true);
    expect(fake.trays[0].destroyed).toBe(true);
    expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(fake.ipcHandlers.size).toBe(0);
  });
});
