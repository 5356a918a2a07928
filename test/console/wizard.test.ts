/**
 * The setup wizard end to end: the built console in Debian Chromium against the real `serve`,
 * whose HOME and vendor config-dir variables point into a temp directory. First run opens the
 * wizard; Claude Code is detected, chosen with steering, previewed, applied (the settings file
 * in the temp home is asserted, and the write is in the audit log), verified by doctor and by a
 * hook POSTed the way Claude Code does, and finishing records `setup.completedAt`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AuditPage } from '../../common/audit';
import type { Settings } from '../../common/settings';
import { launchChromium } from './support/browser';
import { ClaudeSession } from './support/claude-hooks';
import { ensureConsoleBuilt } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli } from './support/serve-process';
import { startHomedServe, type HomedServe } from './wizard-serve';

let daemon: HomedServe;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const step = (name: string) => page.locator(`[data-testid=wizard-step][data-step=${name}]`);
const next = () => page.getByTestId('wizard-next').click();
/** Claude Code's user settings under the relocated CLAUDE_CONFIG_DIR the daemon was started with. */
const claudeSettings = () => join(daemon.home, 'config', 'claude', 'settings.json');

beforeAll(async () => {
  ensureConsoleBuilt();
  daemon = await startHomedServe();
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1180, height: 900 }, colorScheme: 'light' });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(daemon.consoleUrl);
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  daemon?.dispose();
  disposeCli();
});

describe('setup wizard against serve with a temp HOME', () => {
  test('first run opens the wizard, because setup.completedAt is unset', async () => {
    expect((await api<Settings>('GET', '/api/settings'))['setup.completedAt']).toBeNull();
    await step('welcome').waitFor();
    expect(new URL(page.url()).hash).toBe('#/setup');
    expect(await page.locator('html').getAttribute('data-first-run')).toBe('opened');
    expect(await page.getByRole('heading', { name: 'Welcome to AEP Companion' }).isVisible()).toBe(true);
    await shootBothThemes(page, 'wizard-1-welcome');
  });

  test('detection lists every agent with its config path in the temp home', async () => {
    await next();
    await step('detect').waitFor();
    const rows = page.getByTestId('detect-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(5);
    const claude = page.locator('[data-testid=detect-row][data-vendor=claude-code]');
    // The daemon's installer honoured the relocated CLAUDE_CONFIG_DIR of the serve process.
    expect(await claude.innerText()).toContain(claudeSettings());
    expect(await claude.getAttribute('data-installed')).toBe('no');
    expect(await claude.innerText()).toContain('not there yet: would be created');
    await shootBothThemes(page, 'wizard-2-detect');
  });

  test('choose Claude Code for all projects, and opt it in to steering', async () => {
    await next();
    await step('choose').waitFor();
    // Nothing was found in the empty home, so nothing is preselected and Next waits for a choice.
    expect(await page.getByTestId('wizard-next').isDisabled()).toBe(true);
    await page.getByTestId('choose-claude-code').check();
    expect(await page.getByTestId('wizard-next').isEnabled()).toBe(true);
    await shootBothThemes(page, 'wizard-3-choose');
    await next();
    await step('steering').waitFor();
    expect(await page.locator('[data-testid=steering-row]').count()).toBe(1);
    expect(await step('steering').innerText()).toContain('It stays off until you turn it on.');
    expect(await page.getByTestId('wizard-killswitch').getAttribute('data-state')).toBe('off');
    await page.getByTestId('instruct-claude-code').check();
    await shootBothThemes(page, 'wizard-4-steering');
  });

  test('the preview shows the hook entries as a diff, and nothing is written yet', async () => {
    await next();
    await step('preview').waitFor();
    const plan = page.locator('[data-testid=plan][data-vendor=claude-code][data-state=ok]');
    await plan.waitFor();
    const diff = plan.locator(`[data-testid=diff][data-path="${claudeSettings()}"]`);
    const text = await diff.innerText();
    expect(text).toContain(`+            "url": "${daemon.url}/hooks/claude-code?instruct=1"`);
    expect(text).toContain('+    "PreToolUse": [');
    expect(text).toContain('+    "SessionStart": [');
    // The token travels by reference, never by value.
    expect(text).toContain('Bearer $AEP_HOOK_TOKEN');
    expect(text).not.toContain(daemon.hookToken);
    expect(await plan.getByTestId('plan-warnings').innerText()).toContain('AEP_HOOK_TOKEN');
    expect(existsSync(claudeSettings())).toBe(false);
    await shootBothThemes(page, 'wizard-5-preview');
  });

  test('apply writes the settings file in the temp home, and the write is audited', async () => {
    await page.getByTestId('wizard-apply').click();
    await step('apply').waitFor();
    await page.locator('[data-testid=apply-result][data-vendor=claude-code][data-state=ok]').waitFor();
    const written = JSON.parse(readFileSync(claudeSettings(), 'utf8')) as { hooks: Record<string, { hooks: { type: string; url?: string; command?: string }[] }[]> };
    expect(written.hooks.PreToolUse[0].hooks[0]).toMatchObject({ type: 'http', url: `${daemon.url}/hooks/claude-code?instruct=1` });
    expect(written.hooks.SessionStart[0].hooks[0].command).toContain('AEP_INSTRUCT=1');
    const audit = await api<AuditPage>('GET', '/api/audit?action=installer.apply');
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0]).toMatchObject({ actor: 'operator', surface: 'console', action: 'installer.apply', outcome: 'ok' });
    expect(JSON.stringify(audit.rows[0].detail)).toContain('claude-code');
    await shootBothThemes(page, 'wizard-6-apply');
  });

  test('verify shows doctor findings, and a hook from Claude Code turns the live check green', async () => {
    await next();
    await step('verify').waitFor();
    await page.locator('[data-testid=doctor][data-vendor=claude-code][data-state=ok]').waitFor();
    const findings = page.getByTestId('finding');
    expect(await findings.count()).toBeGreaterThan(1);
    expect(await page.locator('[data-testid=finding][data-check=daemon-health]').getAttribute('data-ok')).toBe('true');
    const live = page.locator('[data-testid=live-check][data-vendor=claude-code]');
    expect(await live.getAttribute('data-state')).toBe('waiting');
    expect(await live.innerText()).toContain('waiting for its first hook…');
    await shootBothThemes(page, 'wizard-7-verify-waiting');

    // The agent starts: Claude Code posts its SessionStart hook with the installed opt-in.
    const claude = new ClaudeSession(daemon, '5b1f0c2e-3a44-4d0e-9f61-2c7d8e9a0b1c', join(daemon.home, 'projects', 'app'), 'instruct=1');
    expect((await claude.start()).status).toBe(200);
    await page.locator('[data-testid=live-check][data-vendor=claude-code][data-state=received]').waitFor();
    expect(await live.innerText()).toContain('hook received at');
    await shootBothThemes(page, 'wizard-7-verify-received');
  });

  test('done records setup.completedAt, and the next load no longer opens the wizard', async () => {
    await page.getByTestId('wizard-finish').click();
    await step('done').waitFor();
    const completedAt = (await api<Settings>('GET', '/api/settings'))['setup.completedAt'];
    expect(completedAt).not.toBeNull();
    expect(await page.getByTestId('wizard-done').getAttribute('data-completed-at')).toBe(completedAt);
    await shootBothThemes(page, 'wizard-8-done');

    await page.getByTestId('wizard-open-console').click();
    await page.waitForURL(/#\/sessions$/);
    await page.reload();
    await page.locator('html[data-first-run]').waitFor({ state: 'attached' });
    expect(await page.locator('html').getAttribute('data-first-run')).toBe('not-needed');
    await page.locator('[data-testid=session-row]').first().waitFor();
    expect(new URL(page.url()).hash).toBe('#/sessions');
    expect(pageErrors).toEqual([]);
  });
});
