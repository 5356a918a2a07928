/**
 * The mid-turn steering switch in Settings, in Chromium against the real `serve`, with the mock ACP
 * agent (test/support/mock-acp-agent.mjs --steer=fold) standing in for Claude Code: off by
 * default; a generating session then offers queue only and says so with a link to the setting;
 * turned on from the switch (hot, audited with surface console) the same session offers Send now
 * and the message settles Steered; turned off again, queue only with the reason. The kill switch
 * above it turns it off at once and says why; a host override (AEP_COMPANION_MID_TURN_STEERING)
 * shows it locked with the reason. A Codex steer (the recorded app-server wire replayed in
 * lockstep) that the agent showed it took in reads "Steered · seen by agent".
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AuditPage } from '../../common/audit';
import { seriousViolations } from './support/axe';
import { launchChromium } from './support/browser';
import { ensureConsoleBuilt, REPO } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type ServeProcess } from './support/serve-process';

let daemon: ServeProcess;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const MOCK = join(REPO, 'test/support/mock-acp-agent.mjs');
const LOCKSTEP = join(REPO, 'test/core/launched/steer/codex-lockstep-agent.mjs');
const workdir = mkdtempSync(join(tmpdir(), 'aep-console-midturn-'));

async function api<T>(d: ServeProcess, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${d.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const at = (d: ServeProcess, hash: string): string => `${d.url}/?skipWizard=1${hash}`;

async function open(d: ServeProcess): Promise<void> {
  await page.goto(d.consoleUrl.replace('/#token=', '/?skipWizard=1#token='));
  await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
}

beforeAll(async () => {
  ensureConsoleBuilt();
  daemon = await startServe();
  await api(daemon, 'PUT', '/api/steering', { enabled: true });
  // Each turn is one tool call that runs this long: the window in which a steer can fold.
  await api(daemon, 'PATCH', '/api/settings', { 'agents.claude-code.command': [process.execPath, MOCK, '--steer=fold', '--turn-delay=12000'] });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await open(daemon);
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  if (daemon) removeDataDir(daemon.dataDir);
  disposeCli();
});

const toggle = () => page.getByTestId('midturn-toggle');
const inForce = () => page.getByTestId('midturn-in-force');

describe('the mid-turn steering switch in Settings', () => {
  test('off by default, under the kill switch; readable and without serious axe violations', async () => {
    await page.goto(at(daemon, '#/settings'));
    await page.getByTestId('midturn-section').waitFor();
    expect(await page.getByTestId('midturn-killswitch').getAttribute('data-state')).toBe('on');
    expect(await toggle().isChecked()).toBe(false);
    expect(await toggle().isEnabled()).toBe(true);
    expect(await inForce().innerText()).toContain('Not in force');
    await page.getByTestId('midturn-section').scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'midturn-settings-off');
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('off: a generating session offers queue only and says so with a link; on from the switch: Send now → Steered; off again: queue only with the reason', async () => {
    const launched = await api<{ session: string }>(daemon, 'POST', '/api/launch', { agent: 'claude-code', cwd: workdir, prompt: 'Write the report' });
    const session = launched.session;
    await page.goto(at(daemon, `#/sessions/${encodeURIComponent(session)}`));
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('launched-text').fill('Keep it short');
    await page.getByTestId('mode-queue').waitFor();
    expect(await page.getByTestId('mode-now').count()).toBe(0);
    const badge = page.getByTestId('steer-badge');
    expect(await badge.innerText()).toContain('mid-turn steering is off');
    expect(await badge.innerText()).toContain('queue only');
    await shootBothThemes(page, 'midturn-composer-off');

    // The link leads to the switch; turning it on applies at once (no restart).
    await page.getByTestId('midturn-settings-link').click();
    await page.waitForURL(/#\/settings/);
    await toggle().click();
    await page.locator('[data-testid=midturn-in-force][data-enabled=true]').waitFor();
    expect(await toggle().isChecked()).toBe(true);
    expect(await api<{ enabled: boolean }>(daemon, 'GET', '/api/mid-turn-steering')).toMatchObject({ enabled: true, setting: true });
    const audit = await api<AuditPage>(daemon, 'GET', '/api/audit?action=mid-turn-steering.enabled');
    expect(audit.rows[0]).toMatchObject({ actor: 'operator', surface: 'console', outcome: 'ok' });
    await shootBothThemes(page, 'midturn-settings-on');

    await page.goto(at(daemon, `#/sessions/${encodeURIComponent(session)}`));
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('launched-text').fill('Keep it short');
    await page.getByTestId('mode-now').click();
    expect(await page.getByTestId('composer-says').innerText()).toContain('Goes to the agent now');
    await page.getByTestId('launched-send').click();
    const steered = page.locator('[data-testid=input-item][data-phase=steered]');
    await steered.waitFor({ timeout: 30_000 });
    expect(await steered.getByTestId('input-chip').innerText()).toBe('Steered');
    await page.locator('[data-testid=timeline-row][data-kind=run-end]', { hasText: 'Run finished' }).waitFor({ timeout: 30_000 });

    // Off again from the switch: the next generating turn offers queue only, with the reason.
    await page.goto(at(daemon, '#/settings'));
    await toggle().click();
    await page.locator('[data-testid=midturn-in-force][data-enabled=false]').waitFor();
    const off = await api<AuditPage>(daemon, 'GET', '/api/audit?action=mid-turn-steering.disabled');
    expect(off.rows[0]).toMatchObject({ surface: 'console', outcome: 'ok' });
    await page.goto(at(daemon, `#/sessions/${encodeURIComponent(session)}`));
    await page.getByTestId('launched-text').fill('Next step');
    await page.getByTestId('launched-send').click();
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('launched-text').fill('And another');
    await page.getByTestId('mode-queue').waitFor();
    expect(await page.getByTestId('mode-now').count()).toBe(0);
    expect(await page.getByTestId('steer-badge').innerText()).toContain('mid-turn steering is off');
    expect(await page.getByTestId('composer-says').innerText()).toContain('mid-turn steering is off');
    await page.getByTestId('cancel-turn').click();
    await page.getByRole('dialog', { name: 'Stop the running turn?' }).getByRole('button', { name: 'Stop turn' }).click();
    await page.locator('[data-testid=timeline-row][data-kind=run-end]', { hasText: 'Run cancelled' }).waitFor({ timeout: 30_000 });
  });

  test('the kill switch off turns mid-turn steering off at once and says why; the switch cannot be used', async () => {
    await api(daemon, 'PUT', '/api/mid-turn-steering', { enabled: true });
    await page.goto(at(daemon, '#/settings'));
    await page.locator('[data-testid=midturn-in-force][data-enabled=true]').waitFor();
    await page.getByTestId('kill-switch').click();
    await page.locator('[data-testid=kill-switch][data-state=off]').waitFor();
    await page.locator('[data-testid=midturn-killswitch][data-state=off]').waitFor();
    await page.locator('[data-testid=midturn-in-force][data-enabled=false]').waitFor();
    expect(await inForce().innerText()).toContain('steering is off (kill switch)');
    expect(await page.getByTestId('midturn-killed').innerText()).toContain('Turn steering on');
    expect(await toggle().isDisabled()).toBe(true);
    expect(await api<{ enabled: boolean; setting: boolean }>(daemon, 'GET', '/api/mid-turn-steering')).toMatchObject({ enabled: false, setting: true, steering: false });
    await page.getByTestId('midturn-section').scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'midturn-settings-killed');
    expect(await seriousViolations(page)).toEqual([]);
    await api(daemon, 'PUT', '/api/steering', { enabled: true });
  });

  test('a host override shows the switch locked with the reason', async () => {
    const forced = await startServe({ env: { AEP_COMPANION_MID_TURN_STEERING: '1' } });
    try {
      await api(forced, 'PUT', '/api/steering', { enabled: true });
      await open(forced);
      await page.goto(at(forced, '#/settings'));
      await page.getByTestId('midturn-locked').waitFor();
      expect(await page.getByTestId('midturn-locked').innerText()).toContain('AEP_COMPANION_MID_TURN_STEERING');
      expect(await page.getByTestId('midturn-locked').innerText()).toContain('forces it on');
      expect(await toggle().isDisabled()).toBe(true);
      expect(await toggle().isChecked()).toBe(true);
      expect(await toggle().getAttribute('data-locked')).toBe('true');
      expect(await inForce().getAttribute('data-enabled')).toBe('true');
      await page.getByTestId('midturn-section').scrollIntoViewIfNeeded();
      await shootBothThemes(page, 'midturn-settings-locked');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      // Leave its page first: a console whose daemon stops logs the refused reconnects.
      await page.goto('about:blank');
      await forced.stop();
      removeDataDir(forced.dataDir);
    }
  });

  test('a Codex steer the agent showed it took in reads "Steered · seen by agent" (recorded app-server wire)', async () => {
    await api(daemon, 'PUT', '/api/mid-turn-steering', { enabled: true });
    const wire = join(REPO, 'test/fixtures/acp-wire/codex-app-server-0.171.0.steer.json');
    await api(daemon, 'PATCH', '/api/settings', { 'agents.codex.command': [process.execPath, LOCKSTEP, wire] });
    const { session } = await api<{ session: string }>(daemon, 'POST', '/api/launch', { agent: 'codex', cwd: workdir, prompt: 'run the probe' });
    await page.goto(at(daemon, `#/sessions/${encodeURIComponent(session)}`));
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('launched-text').fill('STEER-ACP-MARKER');
    await page.getByTestId('mode-now').click();
    await page.getByTestId('launched-send').click();
    const seen = page.locator('[data-testid=input-item][data-phase=steered][data-seen=true]');
    await seen.waitFor({ timeout: 30_000 });
    expect(await seen.getByTestId('input-chip').innerText()).toBe('Steered · seen by agent');
    await shootBothThemes(page, 'midturn-codex-seen');
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('the page logged no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
