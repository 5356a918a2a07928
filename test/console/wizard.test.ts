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
import { shouldOpenWizard, skipWizardRequested } from '../../renderer/src/wizard/first-run';
import { chosenVendors, diffLines, diffStat, hookArrived, initialChoices, installOptions, isLauncherFile, scopeProblem, updateVendor } from '../../renderer/src/wizard/wizard-model';
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
  page.setDefaultTimeout(20_000);
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
    // Either the rows or the daemon's refusal; a refusal fails here with the daemon's own words.
    await page.locator('[data-testid=detect-row], [data-testid=detect-error]').first().waitFor();
    if (await page.getByTestId('detect-error').count()) throw new Error(`detection refused: ${await page.getByTestId('detect-error').innerText()}`);
    expect(await rows.count()).toBe(5);
    const claude = page.locator('[data-testid=detect-row][data-vendor=claude-code]');
    // The daemon's installer honoured the relocated CLAUDE_CONFIG_DIR of the serve process.
    expect(await claude.innerText()).toContain(claudeSettings());
    expect(await claude.getAttribute('data-installed')).toBe('no');
    expect(await claude.innerText()).toContain('not there yet: would be created');
    await shootBothThemes(page, 'wizard-2-detect');
  });

  test('choose Claude Code and Codex for all projects, and opt them in to steering', async () => {
    await next();
    await step('choose').waitFor();
    // Nothing was found in the empty home, so nothing is preselected and Next waits for a choice.
    expect(await page.getByTestId('wizard-next').isDisabled()).toBe(true);
    await page.getByTestId('choose-claude-code').check();
    await page.getByTestId('choose-codex').check();
    expect(await page.getByTestId('wizard-next').isEnabled()).toBe(true);
    await shootBothThemes(page, 'wizard-3-choose');
    await next();
    await step('steering').waitFor();
    expect(await page.locator('[data-testid=steering-row]').count()).toBe(2);
    expect(await step('steering').innerText()).toContain('It stays off until you turn it on.');
    expect(await page.getByTestId('wizard-killswitch').getAttribute('data-state')).toBe('off');
    await page.getByTestId('instruct-claude-code').check();
    await page.getByTestId('instruct-codex').check();
    await shootBothThemes(page, 'wizard-4-steering');
  });

  test('the preview says before applying that Codex will ask to trust its hooks again', async () => {
    await next();
    await step('preview').waitFor();
    const codex = page.locator('[data-testid=plan][data-vendor=codex][data-state=ok]');
    await codex.waitFor();
    await page.locator('[data-testid=plan][data-vendor=claude-code][data-state=ok]').waitFor();
    await shootBothThemes(page, 'wizard-5-preview-two');
    await codex.getByTestId('retrust').scrollIntoViewIfNeeded();
    expect(await codex.getByTestId('retrust').innerText()).toContain('Codex CLI will ask you to trust its hooks again.');
    await page.locator('[data-testid=plan][data-vendor=claude-code][data-state=ok]').waitFor();
    expect(await page.locator('[data-testid=plan][data-vendor=claude-code] [data-testid=retrust]').count()).toBe(0);
    await shootBothThemes(page, 'wizard-5-preview-retrust');
    expect(existsSync(join(daemon.home, '.codex', 'hooks.json'))).toBe(false);

    // Back to the choice: only Claude Code this time.
    await page.getByRole('button', { name: '← Back' }).click();
    await step('steering').waitFor();
    await page.getByRole('button', { name: '← Back' }).click();
    await step('choose').waitFor();
    await page.getByTestId('choose-codex').uncheck();
    await next();
    await step('steering').waitFor();
    expect(await page.getByTestId('instruct-claude-code').isChecked()).toBe(true);
  });

  test('the preview shows the hook entries as a diff, and nothing is written yet', async () => {
    await next();
    await step('preview').waitFor();
    expect(await page.locator('[data-testid=plan]').count()).toBe(1);
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
    await page.evaluate(() => document.getElementById('main')?.scrollTo(0, 0));
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
  });

  test('setup runs again from Settings, and detection shows what is installed', async () => {
    await page.goto(`${daemon.url}/#/settings`);
    await page.getByTestId('settings-run-setup').click();
    await step('welcome').waitFor();
    await page.getByRole('heading', { name: 'Run setup again' }).waitFor();
    await next();
    const claude = page.locator('[data-testid=detect-row][data-vendor=claude-code]');
    await claude.waitFor();
    expect(await claude.getAttribute('data-installed')).toBe('yes');
    expect(await claude.innerText()).toContain('installed · steering opt-in');
    expect(await page.locator('[data-testid=detect-row][data-vendor=codex]').getAttribute('data-installed')).toBe('no');
    await shootBothThemes(page, 'wizard-rerun-detect');
  });

  test('skipping the wizard also records setup as finished', async () => {
    await api('PATCH', '/api/settings', { 'setup.completedAt': null });
    // A new window load: the first-run check runs once per load.
    await page.goto(`${daemon.url}/#/sessions`);
    await page.reload();
    await step('welcome').waitFor();
    await page.getByTestId('wizard-skip').click();
    await page.waitForURL(/#\/sessions$/);
    expect((await api<Settings>('GET', '/api/settings'))['setup.completedAt']).not.toBeNull();
    expect(pageErrors).toEqual([]);
  });
});

describe('wizard logic', () => {
  test('first run opens the wizard only when setup never finished and nothing asked to skip', () => {
    expect(shouldOpenWizard(null, false, { name: 'sessions' })).toBe(true);
    expect(shouldOpenWizard('2026-01-01T00:00:00.000Z', false, { name: 'sessions' })).toBe(false);
    expect(shouldOpenWizard(null, true, { name: 'sessions' })).toBe(false);
    expect(shouldOpenWizard(null, false, { name: 'setup' })).toBe(false);
    expect(shouldOpenWizard(null, false, { name: 'quick-instruct', session: null })).toBe(false);
    expect(skipWizardRequested({ search: '?skipWizard=1', hash: '' })).toBe(true);
    expect(skipWizardRequested({ search: '?skipWizard', hash: '' })).toBe(true);
    expect(skipWizardRequested({ search: '', hash: '#/sessions?skipWizard=true' })).toBe(true);
    expect(skipWizardRequested({ search: '?skipWizard=0', hash: '#/sessions' })).toBe(false);
    expect(skipWizardRequested({ search: '', hash: '#/setup' })).toBe(false);
  });

  test('choices preselect what was found and become install options', () => {
    const found = { configPath: '/h/.x', configExists: false, cliPath: null, cliVersion: null, installed: null, warnings: [] };
    const choices = initialChoices([
      { ...found, vendor: 'claude-code', cliPath: '/usr/bin/claude', cliVersion: '2.1.0' },
      { ...found, vendor: 'codex', installed: { instruct: true, permissions: false } },
      { ...found, vendor: 'hermes' },
    ]);
    expect(chosenVendors(choices)).toEqual(['claude-code', 'codex']);
    // An existing install keeps its opt-ins as the starting point.
    expect(choices.vendors.codex.instruct).toBe(true);
    expect(installOptions(choices, 'claude-code')).toEqual({ vendor: 'claude-code', scope: 'user', instruct: false, permissions: false });
    const project = updateVendor({ ...choices, scope: 'project', project: ' /work/app ' }, 'claude-code', { instruct: true, transport: 'command' });
    expect(installOptions(project, 'claude-code')).toEqual({ vendor: 'claude-code', scope: 'project', project: '/work/app', instruct: true, permissions: false, transport: 'command' });
    expect(scopeProblem({ ...choices, scope: 'project', project: 'app' })).toMatch(/full path/);
    expect(scopeProblem({ ...choices, scope: 'project', project: 'C:\\work\\app' })).toBeNull();
  });

  test('diffs read line by line, and only a changed last hook counts as arrived', () => {
    const diff = '===================================================================\n--- a\n+++ b\n@@ -1,2 +1,3 @@\n {\n-  "x": 1\n+  "x": 2,\n+  "hooks": {}\n';
    expect(diffLines(diff).map((l) => l.kind)).toEqual(['meta', 'meta', 'hunk', 'ctx', 'del', 'add', 'add']);
    expect(diffStat(diff)).toEqual({ added: 2, removed: 1 });
    expect(isLauncherFile('/d/bin/aep-companion-hook.mjs')).toBe(true);
    expect(isLauncherFile('/h/.claude/settings.json')).toBe(false);
    expect(hookArrived(undefined, undefined)).toBe(false);
    expect(hookArrived(undefined, '2026-01-01T00:00:01Z')).toBe(true);
    expect(hookArrived('2026-01-01T00:00:01Z', '2026-01-01T00:00:01Z')).toBe(false);
    expect(hookArrived('2026-01-01T00:00:01Z', '2026-01-01T00:00:02Z')).toBe(true);
  });
});
