/**
 * The setup wizard end to end: the built console in Debian Chromium against the real `serve`,
 * whose HOME and vendor config-dir variables point into a temp directory. First run opens the
 * wizard; Claude Code is detected, chosen, the capture level explained and saved (recommended
 * `redacted`), steering opted in, previewed (the default launcher: no token, no port), applied
 * (the settings file in the temp home is asserted, and the write is in the audit log), verified by
 * doctor (whose synthetic hook never becomes a session) and by a hook POSTed the way Claude Code
 * does; every command shown has a copy button; finishing records `setup.completedAt`, skipping
 * records only `setup.skippedAt`, and Settings says "Finished" and "Restart needed" truthfully.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AuditPage } from '../../common/audit';
import type { Settings } from '../../common/settings';
import { VENDORS } from '../../common/vendors';
import { launchChromium } from './support/browser';
import { ClaudeSession } from './support/claude-hooks';
import { ensureConsoleBuilt, REPO } from './support/console-build';
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
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url });
  // An older install kept less: the wizard explains the levels and Apply saves the recommended one.
  await api('PATCH', '/api/settings', { 'capture.ceiling': 'metadata' });
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
    expect(await rows.count()).toBe(VENDORS.length);
    const claude = page.locator('[data-testid=detect-row][data-vendor=claude-code]');
    // The daemon's installer honoured the relocated CLAUDE_CONFIG_DIR of the serve process.
    expect(await claude.innerText()).toContain(claudeSettings());
    expect(await claude.getAttribute('data-installed')).toBe('no');
    expect(await claude.innerText()).toContain('not there yet: would be created');
    // The badge is about the companion's hooks; the CLI has its own line.
    expect(await claude.innerText()).toContain('hooks not installed');
    expect(await claude.innerText()).not.toMatch(/(^|[^s] )not installed/);
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
    // The launcher is the default transport: it works from any shell and on any port.
    expect(await page.getByTestId('transport-claude-code').inputValue()).toBe('command');
    await shootBothThemes(page, 'wizard-3-choose');
    await next();
    await step('capture').waitFor();
    const options = page.getByTestId('capture-option');
    expect(await options.count()).toBe(4);
    const redacted = page.locator('[data-testid=capture-option][data-level=redacted]');
    expect(await redacted.innerText()).toContain('recommended');
    expect(await redacted.innerText()).toContain('Secrets, tokens, keys and your home folder path are replaced');
    expect(await page.locator('[data-testid=capture-option][data-level=metadata]').innerText()).toContain('not captured');
    // The recommended level is preselected even though the daemon keeps less today.
    expect(await redacted.locator('input').isChecked()).toBe(true);
    expect(await step('capture').innerText()).toContain('Now: metadata. Apply saves redacted.');
    await shootBothThemes(page, 'wizard-4-capture');
    await next();
    await step('steering').waitFor();
    expect(await page.locator('[data-testid=steering-row]').count()).toBe(2);
    expect(await step('steering').innerText()).toContain('It stays off until you turn it on.');
    expect(await page.getByTestId('wizard-killswitch').getAttribute('data-state')).toBe('off');
    await page.getByTestId('instruct-claude-code').check();
    await page.getByTestId('instruct-codex').check();
    await shootBothThemes(page, 'wizard-4b-steering');
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
    // The command the user must run in Codex comes with a copy button.
    expect(await codex.locator('[data-testid=copy-command][data-copy="/hooks"]').count()).toBe(1);
    await page.locator('[data-testid=plan][data-vendor=claude-code][data-state=ok]').waitFor();
    expect(await page.locator('[data-testid=plan][data-vendor=claude-code] [data-testid=retrust]').count()).toBe(0);
    await shootBothThemes(page, 'wizard-5-preview-retrust');
    expect(existsSync(join(daemon.home, '.codex', 'hooks.json'))).toBe(false);

    // Back to the choice: only Claude Code this time.
    await page.getByRole('button', { name: '← Back' }).click();
    await step('steering').waitFor();
    await page.getByRole('button', { name: '← Back' }).click();
    await step('capture').waitFor();
    await page.getByRole('button', { name: '← Back' }).click();
    await step('choose').waitFor();
    await page.getByTestId('choose-codex').uncheck();
    await next();
    await step('capture').waitFor();
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
    // The settings file comes first and open; the companion's launcher scripts after it, collapsed.
    const files = plan.locator('[data-testid=diff]');
    expect(await files.first().getAttribute('data-path')).toBe(claudeSettings());
    for (let i = 1; i < (await files.count()); i++) {
      expect(await files.nth(i).getAttribute('data-path')).toContain(join(daemon.dataDir, 'bin'));
      expect(await files.nth(i).evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    }
    const launcher = join(daemon.dataDir, 'bin', 'aep-companion-hook');
    expect(text).toContain(`+            "command": "AEP_INSTRUCT=1 ${launcher} claude-code"`);
    expect(text).toContain('+    "PreToolUse": [');
    expect(text).toContain('+    "SessionStart": [');
    // The default launcher reads the token file and daemon.json itself: no token, no variable, no port.
    expect(text).not.toContain(daemon.hookToken);
    expect(text).not.toContain('AEP_HOOK_TOKEN');
    expect(text).not.toContain(new URL(daemon.url).port);
    expect(await plan.getByTestId('plan-warnings').innerText()).not.toContain('AEP_HOOK_TOKEN');
    expect(existsSync(claudeSettings())).toBe(false);
    await page.evaluate(() => document.getElementById('main')?.scrollTo(0, 0));
    await shootBothThemes(page, 'wizard-5-preview');
  });

  test('apply writes the settings file in the temp home, and the write is audited', async () => {
    await page.getByTestId('wizard-apply').click();
    await step('apply').waitFor();
    await page.locator('[data-testid=apply-result][data-vendor=claude-code][data-state=ok]').waitFor();
    const written = JSON.parse(readFileSync(claudeSettings(), 'utf8')) as { hooks: Record<string, { hooks: { type: string; url?: string; command?: string }[] }[]> };
    expect(written.hooks.PreToolUse[0].hooks[0]).toMatchObject({ type: 'command', command: `AEP_INSTRUCT=1 ${join(daemon.dataDir, 'bin', 'aep-companion-hook')} claude-code` });
    expect(written.hooks.SessionStart[0].hooks[0].command).toContain('AEP_INSTRUCT=1');
    // The capture level chosen in the wizard was saved with Apply.
    expect((await api<Settings>('GET', '/api/settings'))['capture.ceiling']).toBe('redacted');
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
    // The default install passes doctor as installed: the launcher reaches the daemon from a clean shell.
    expect(await page.locator('[data-testid=finding][data-ok=false]').count()).toBe(0);
    // Doctor's synthetic hook reached the daemon, but it is no session.
    expect(JSON.stringify(await api('GET', '/api/sessions'))).not.toContain('aep-companion-doctor');
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
    // `aep-companion` is not on PATH yet: the undo command names this install's entry instead.
    const undo = page.locator('[data-testid=undo][data-vendor=claude-code] [data-testid=copy-command]');
    const offer = page.getByTestId('command-line');
    await offer.waitFor();
    expect(await offer.getAttribute('data-installed')).toBe('absent');
    // This `serve` runs from a clone under Node: the command names this runtime and entry, and npx works in the checkout.
    const direct = `${process.execPath} ${join(REPO, 'bin', 'aep-companion.mjs')}`;
    expect(await undo.getAttribute('data-copy')).toBe(`${direct} uninstall --vendor claude-code`);
    const without = await page.getByTestId('command-line-without').innerText();
    expect(without).toContain(`a terminal runs it as ${direct}`);
    expect(without).toContain(`npx aep-companion inside the checkout ${REPO.replace(/\/$/, '')}.`);
    await offer.scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'wizard-8-done-offer');

    // Installing the command line writes the launcher into the temp home; its folder is not on PATH here.
    await page.getByTestId('install-command-line').click();
    await page.locator('[data-testid=command-line][data-installed=ours]').waitFor();
    const launcher = join(daemon.home, '.local', 'bin', 'aep-companion');
    expect(await offer.getAttribute('data-on-path')).toBe('no');
    expect(await offer.innerText()).toContain('not on your PATH');
    expect(execFileSync(launcher, ['--help'], { encoding: 'utf8' })).toContain('aep-companion');
    // The exact undo command, with a copy button that puts it on the clipboard.
    const command = `${launcher} uninstall --vendor claude-code`;
    expect(await undo.getAttribute('data-copy')).toBe(command);
    await undo.click();
    await page.getByRole('button', { name: `Copy ${command}` }).filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
    expect((await api<AuditPage>('GET', '/api/audit?action=command-line.install')).rows[0]).toMatchObject({ surface: 'console', outcome: 'ok' });
    await shootBothThemes(page, 'wizard-8-done');
    // The launcher removes itself.
    expect(execFileSync(launcher, ['uninstall', '--command-line', '--data-dir', daemon.dataDir], { encoding: 'utf8', env: { ...process.env, HOME: daemon.home } })).toContain(`removed: ${launcher}`);
    expect(existsSync(launcher)).toBe(false);

    await page.getByTestId('wizard-open-console').click();
    await page.waitForURL(/#\/sessions$/);
    await page.reload();
    await page.locator('html[data-first-run]').waitFor({ state: 'attached' });
    expect(await page.locator('html').getAttribute('data-first-run')).toBe('not-needed');
    await page.locator('[data-testid=session-row]').first().waitFor();
    expect(new URL(page.url()).hash).toBe('#/sessions');
    expect(await page.getByTestId('session-row').count()).toBe(1);
    expect(await page.locator('main').innerText()).not.toContain('aep-companion-doctor');
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
    expect(await claude.innerText()).toContain('hooks installed · steering opt-in');
    expect(await page.locator('[data-testid=detect-row][data-vendor=codex]').getAttribute('data-installed')).toBe('no');
    await shootBothThemes(page, 'wizard-rerun-detect');
  });

  test('Settings says "Finished" once the wizard ran to its end', async () => {
    await page.goto(`${daemon.url}/#/settings`);
    await page.getByTestId('settings-setup-status').waitFor();
    expect(await page.getByTestId('settings-setup-status').innerText()).toMatch(/^Finished /);
  });

  test('Settings says "Restart needed" only after the port setting changed, not for the port the daemon happens to run on', async () => {
    await page.goto(`${daemon.url}/#/settings`);
    await page.locator('#port').waitFor();
    // serve --port 0: the daemon runs on another port than the setting names, and nothing changed.
    expect(new URL(daemon.url).port).not.toBe('8787');
    expect(await page.getByTestId('restart-needed').count()).toBe(0);
    await page.locator('#port').fill('9911');
    await page.locator('#port').press('Enter');
    await page.getByTestId('restart-needed').waitFor();
    expect(await page.getByTestId('restart-needed').innerText()).toContain(`it runs on ${new URL(daemon.url).port}`);
    await page.getByTestId('restart-needed').evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await shootBothThemes(page, 'settings-restart-needed');
    await page.locator('#port').fill('8787');
    await page.locator('#port').press('Enter');
    await page.getByTestId('restart-needed').waitFor({ state: 'detached' });
  });

  test('HTTP hooks that name another port are shown in Settings and reinstalled in one click', async () => {
    await api('POST', '/api/installer/apply', { vendor: 'qwen-code', scope: 'user', instruct: false, permissions: false, transport: 'http' });
    const file = join(daemon.home, '.qwen', 'settings.json');
    const port = new URL(daemon.url).port;
    // The daemon moved (8787 was taken, another --port): the installed URLs name the old port.
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll(`127.0.0.1:${port}/`, '127.0.0.1:1/'));
    await page.goto(`${daemon.url}/#/settings`);
    const notice = page.getByTestId('hook-port-notice');
    await notice.waitFor();
    expect(await notice.innerText()).toContain(`Qwen Code (your user settings) posts to http://127.0.0.1:1, but the daemon listens on ${daemon.url}`);
    await notice.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await shootBothThemes(page, 'settings-hook-port-mismatch');
    await page.getByTestId('hook-port-repair').click();
    await notice.getByText('Reinstalled for Qwen Code').waitFor();
    expect(readFileSync(file, 'utf8')).toContain(`${daemon.url}/hooks/qwen-code`);
    expect((await api<{ hookPortMismatch: unknown[] }>('GET', '/api/status')).hookPortMismatch).toEqual([]);
    await api('POST', '/api/installer/uninstall', { vendor: 'qwen-code', scope: 'user' });
  });

  test('skipping the wizard records it as skipped, not finished, and it stops opening', async () => {
    await api('PATCH', '/api/settings', { 'setup.completedAt': null });
    // A new window load: the first-run check runs once per load.
    await page.goto(`${daemon.url}/#/sessions`);
    await page.reload();
    await step('welcome').waitFor();
    await page.getByTestId('wizard-skip').click();
    await page.waitForURL(/#\/sessions$/);
    const settings = await api<Settings>('GET', '/api/settings');
    expect(settings['setup.completedAt']).toBeNull();
    expect(settings['setup.skippedAt']).not.toBeNull();
    await page.reload();
    await page.locator('html[data-first-run]').waitFor({ state: 'attached' });
    expect(await page.locator('html').getAttribute('data-first-run')).toBe('not-needed');
    await page.goto(`${daemon.url}/#/settings`);
    const status = page.getByTestId('settings-setup-status');
    await status.waitFor();
    expect(await status.innerText()).toMatch(/^Skipped .*not finished/);
    expect(await status.innerText()).not.toContain('Finished');
    await page.locator('#s-agents').scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'settings-setup-skipped');
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
    expect(shouldOpenWizard(null, false, { name: 'sessions' }, '2026-01-01T00:00:00.000Z')).toBe(false);
    expect(shouldOpenWizard(null, false, { name: 'sessions' }, null)).toBe(true);
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
    expect(isLauncherFile('/d/bin/aep-companion-hook.cjs')).toBe(true);
    expect(isLauncherFile('/d/bin/aep-companion-hook.mjs')).toBe(true);
    expect(isLauncherFile('/d/bin/aep-companion-hook.bash')).toBe(true);
    expect(isLauncherFile('/h/.claude/settings.json')).toBe(false);
    expect(hookArrived(undefined, undefined)).toBe(false);
    expect(hookArrived(undefined, '2026-01-01T00:00:01Z')).toBe(true);
    expect(hookArrived('2026-01-01T00:00:01Z', '2026-01-01T00:00:01Z')).toBe(false);
    expect(hookArrived('2026-01-01T00:00:01Z', '2026-01-01T00:00:02Z')).toBe(true);
  });
});
