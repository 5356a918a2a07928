/**
 * The browser console behaving like a desktop app, against the real `serve` (temp HOME) in
 * Debian Chromium: the token link signs the browser in once and a second tab or a reload needs no
 * token (another browser profile is told how to sign in); the status bar's last hook ignores
 * doctor's synthetic hook; with no live session the list shows all sessions at once; the New
 * session dialog remembers the agent and folder it started last and offers recent folders.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Settings } from '../../common/settings';
import { syntheticPayload } from '../../main/core/installer/synthetic-hook';
import { launchChromium } from './support/browser';
import { ClaudeSession } from './support/claude-hooks';
import { ensureConsoleBuilt, REPO } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli } from './support/serve-process';
import { startHomedServe, type HomedServe } from './wizard-serve';

let daemon: HomedServe;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const MOCK = join(REPO, 'test/support/mock-acp-agent.mjs');

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A console address without any token: what a second tab or a bookmark opens. */
const plain = (hash: string): string => `${daemon.url}/?skipWizard=1${hash}`;
const connected = (p: Page) => p.locator('[data-testid=connection-state][data-phase=open]').waitFor();

function watch(p: Page): void {
  p.on('pageerror', (e) => pageErrors.push(e.message));
  p.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
}

beforeAll(async () => {
  ensureConsoleBuilt();
  daemon = await startHomedServe();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  watch(page);
  await page.goto(daemon.consoleUrl.replace('/#token=', '/?skipWizard=1#token='));
  await connected(page);
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  daemon?.dispose();
  disposeCli();
});

describe('the console as a desktop app', () => {
  test('a second tab and a reload work without the token link; no URL but the first carries it', async () => {
    expect(page.url()).not.toContain('token');
    const second = await context.newPage();
    watch(second);
    const requested: string[] = [];
    second.on('request', (r) => requested.push(r.url()));
    second.on('websocket', (ws) => requested.push(ws.url()));
    await second.goto(plain('#/sessions'));
    await connected(second);
    expect(await second.getByRole('alert').count()).toBe(0);
    expect(await second.getByText('No sessions yet: set up your agents').count()).toBe(1);
    await second.reload();
    await connected(second);
    // Neither the page nor its socket put a token in any address.
    expect(requested.length).toBeGreaterThan(2);
    expect(requested.filter((u) => u.includes('token'))).toEqual([]);
    await shootBothThemes(second, 'second-tab');
    await second.close();

    // Another browser profile has no cookie: it is told how to sign in, and reaches nothing.
    const stranger = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light' });
    const outside = await stranger.newPage();
    await outside.goto(plain('#/sessions'));
    const banner = outside.getByRole('alert').filter({ hasText: 'This browser is not signed in' });
    await banner.waitFor();
    expect(await banner.innerText()).toContain('#token=');
    // No view waits forever behind it.
    expect(await outside.getByText('Loading sessions…').count()).toBe(0);
    // The status bar says the same plainly instead of waiting on a connection that never starts.
    const bar = outside.getByRole('contentinfo', { name: 'Daemon status' });
    await expect(bar.getByTestId('connection-state').getAttribute('data-phase')).resolves.toBe('signed-out');
    const barText = await bar.innerText();
    expect(barText).toContain('Not signed in');
    expect(barText).not.toMatch(/Connecting|Loading status/);
    await shootBothThemes(outside, 'not-signed-in');
    await stranger.close();
  });

  test("the status bar's last hook ignores doctor's synthetic hook", async () => {
    const doctor = await fetch(`${daemon.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${daemon.hookToken}` },
      body: JSON.stringify(syntheticPayload('claude-code', daemon.home)),
    });
    expect(doctor.status).toBe(200);
    await page.reload();
    await connected(page);
    const bar = page.getByRole('contentinfo', { name: 'Daemon status' });
    await bar.getByText('No hook calls received yet').waitFor();
    const session = new ClaudeSession(daemon, '3c2b1a00-0000-4000-8000-00000000beef', join(daemon.home, 'projects', 'shop'));
    expect((await session.start()).status).toBe(200);
    await bar.getByText('Last hook:').waitFor();
    expect(await bar.innerText()).toContain('Claude Code');
  });

  test('with no live session, the sessions list shows every session at once', async () => {
    const session = new ClaudeSession(daemon, '3c2b1a00-0000-4000-8000-00000000beef', join(daemon.home, 'projects', 'shop'));
    expect((await session.post('SessionEnd', { reason: 'exit' })).status).toBe(200);
    await page.goto(plain('#/sessions'));
    const row = page.locator('[data-testid=session-row][data-session="3c2b1a00-0000-4000-8000-00000000beef"]');
    await row.waitFor();
    expect(await page.getByText('No sessions match').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'All', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await shootBothThemes(page, 'sessions-all-ended');
    // The operator's own choice stands: Live now says where the ended one is.
    await page.getByRole('button', { name: 'Live', exact: true }).click();
    await page.getByText('Ended sessions are under “All”.').waitFor();
  });

  test('New session remembers the last agent and folder, and offers recent folders', async () => {
    await api('PATCH', '/api/settings', { 'agents.claude-code.command': [process.execPath, MOCK], 'agents.qwen-code.command': [process.execPath, MOCK] });
    const first = join(daemon.home, 'projects', 'first');
    const second = join(daemon.home, 'projects', 'second');
    mkdirSync(first, { recursive: true });
    mkdirSync(second, { recursive: true });
    const dialog = page.getByTestId('new-session-dialog');
    const launch = async (agent: string, folder: string) => {
      await page.goto(plain('#/sessions'));
      await page.getByTestId('new-session').click();
      await dialog.locator(`[data-testid=agent-option][data-agent=${agent}] input:not([disabled])`).check();
      await dialog.getByTestId('launch-cwd').fill(folder);
      await dialog.getByTestId('launch-start').click();
      await page.waitForURL(/#\/sessions\/.+/);
      await expect.poll(async () => (await api<Settings>('GET', '/api/settings'))['launch.recentFolders'][0]).toBe(folder);
    };
    await launch('qwen-code', first);
    await launch('claude-code', second);
    expect((await api<Settings>('GET', '/api/settings'))['launch.lastAgent']).toBe('claude-code');

    // A fresh tab (the settings live in the daemon, not in this page) opens the dialog as it was left.
    const tab = await context.newPage();
    watch(tab);
    await tab.goto(plain('#/sessions'));
    await tab.getByTestId('new-session').click();
    const d = tab.getByTestId('new-session-dialog');
    await expect.poll(() => d.getByTestId('launch-cwd').inputValue()).toBe(second);
    await expect.poll(() => d.locator('[data-testid=agent-option][data-agent=claude-code] input').isChecked()).toBe(true);
    const recent = d.getByTestId('recent-folder');
    expect(await recent.allInnerTexts()).toEqual([second, first]);
    await recent.nth(1).click();
    expect(await d.getByTestId('launch-cwd').inputValue()).toBe(first);
    await shootBothThemes(tab, 'new-session-remembered');
    await tab.close();
  });

  test("the wizard marks what doctor cannot see with a question mark, not a tick, and shows the settings before the launcher", async () => {
    const step = (name: string) => page.locator(`[data-testid=wizard-step][data-step=${name}]`);
    const next = () => page.getByTestId('wizard-next').click();
    await page.goto(`${daemon.url}/#/setup`);
    await step('welcome').waitFor();
    await next();
    await page.locator('[data-testid=detect-row][data-vendor=codex]').waitFor();
    expect(await page.locator('[data-testid=detect-row][data-vendor=codex]').innerText()).toContain('hooks not installed');
    await next();
    await step('choose').waitFor();
    await page.getByTestId('choose-codex').check();
    await next();
    await step('capture').waitFor();
    await next();
    await step('steering').waitFor();
    await next();
    const plan = page.locator('[data-testid=plan][data-vendor=codex][data-state=ok]');
    await plan.waitFor();
    const files = await plan.locator('[data-testid=diff]').evaluateAll((els) => els.map((e) => ({ path: e.getAttribute('data-path'), open: (e as HTMLDetailsElement).open })));
    expect(files[0]).toEqual({ path: join(daemon.home, '.codex', 'hooks.json'), open: true });
    expect(files.slice(1).every((f) => f.path!.includes(join('data', 'bin')) && !f.open)).toBe(true);
    await page.getByTestId('wizard-apply').click();
    await page.locator('[data-testid=apply-result][data-vendor=codex][data-state=ok]').waitFor();
    await next();
    await page.locator('[data-testid=doctor][data-vendor=codex][data-state=ok]').waitFor();
    const trust = page.locator('[data-testid=doctor][data-vendor=codex] [data-testid=finding][data-check=trust]');
    expect(await trust.getAttribute('data-unchecked')).toBe('true');
    expect(await trust.locator('.wz-finding-icon').innerText()).toBe('?');
    expect(await trust.locator('.wz-finding-icon').getAttribute('aria-label')).toBe('not checked');
    expect(await page.locator('h3', { hasText: 'Doctor' }).innerText()).toContain('doctor cannot see');
    await trust.scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'wizard-verify-codex-unchecked');
  });

  test('the pages logged no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
