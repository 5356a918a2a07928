/**
 * The retention settings in Settings, in Debian Chromium against a real `serve` on port 0: each
 * `retention.*` setting has a number field with its unit showing the daemon's value; a change is
 * saved through PATCH /api/settings; a value that is not a whole number is refused in the field
 * without a request; a value the daemon refuses shows the daemon's reason next to the field.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Settings } from '../../common/settings';
import { seriousViolations } from './support/axe';
import { launchChromium } from './support/browser';
import { ensureConsoleBuilt } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type ServeProcess } from './support/serve-process';

let daemon: ServeProcess;
let browser: Browser;
let page: Page;
const patches: string[] = [];

async function settings(): Promise<Settings> {
  const res = await fetch(`${daemon.url}/api/settings`, { headers: { authorization: `Bearer ${daemon.operatorToken}` } });
  return (await res.json()) as Settings;
}

beforeAll(async () => {
  ensureConsoleBuilt();
  daemon = await startServe();
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page = await context.newPage();
  page.on('request', (r) => {
    if (r.method() === 'PATCH') patches.push(r.postData() ?? '');
  });
  await page.goto(daemon.consoleUrl.replace('/#token=', '/?skipWizard=1#token='));
  await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  if (daemon) removeDataDir(daemon.dataDir);
  disposeCli();
});

const fields = [
  ['Events per session', 'retention.maxEventsPerSession', 'events'],
  ['Events', 'retention.eventDays', 'days'],
  ['Inactive sessions', 'retention.sessionDays', 'days'],
  ['Ended sessions', 'retention.endedSessionDays', 'days'],
  ['Steering records', 'retention.steeringDays', 'days'],
  ['Audit log', 'retention.auditDays', 'days'],
] as const;

describe('retention settings', () => {
  test('every retention setting has a field with its unit, showing the daemon value', async () => {
    await page.evaluate(() => (location.hash = '#/settings'));
    const section = page.getByTestId('settings-retention');
    await section.waitFor();
    const now = await settings();
    for (const [label, key, unit] of fields) {
      const input = section.getByLabel(label, { exact: true });
      expect(await input.inputValue(), label).toBe(String(now[key]));
      expect(await input.locator('xpath=following-sibling::span').innerText(), label).toBe(unit);
    }
  });

  test('a change is saved through the settings API and survives a reload', async () => {
    const section = page.getByTestId('settings-retention');
    const ended = section.getByLabel('Ended sessions', { exact: true });
    await ended.fill('7');
    await ended.press('Enter');
    await page.getByText('Retention of ended sessions saved.').waitFor();
    expect((await settings())['retention.endedSessionDays']).toBe(7);
    await page.reload();
    await section.waitFor();
    expect(await section.getByLabel('Ended sessions', { exact: true }).inputValue()).toBe('7');
  });

  test('a value that is not a whole number is refused in the field, without a request', async () => {
    const section = page.getByTestId('settings-retention');
    const events = section.getByLabel('Events', { exact: true });
    const before = patches.length;
    await events.fill('2.5');
    await events.press('Enter');
    const error = section.getByTestId('retention-event-days-error');
    await error.waitFor();
    expect(await error.innerText()).toBe('Enter a whole number of days.');
    expect(await events.getAttribute('aria-invalid')).toBe('true');
    await events.fill('0');
    await events.press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=retention-event-days-error]')?.textContent === 'Enter at least 1.');
    expect(patches.length).toBe(before);
    expect((await settings())['retention.eventDays']).toBe(30);
    // Corrected, it saves and the message goes.
    await events.fill('45');
    await events.press('Enter');
    await page.getByText('Retention of events saved.').waitFor();
    expect(await error.count()).toBe(0);
    expect((await settings())['retention.eventDays']).toBe(45);
  });

  test('a value the daemon refuses shows its reason next to the field, and nothing changes', async () => {
    const section = page.getByTestId('settings-retention');
    const audit = section.getByLabel('Audit log', { exact: true });
    await audit.fill('40000');
    await audit.press('Enter');
    const error = section.getByTestId('retention-audit-days-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/'retention\.auditDays' must be an integer from 1 to 36500/);
    expect(await audit.inputValue()).toBe('40000');
    expect(await page.locator('.live-region .error-text').innerText()).toMatch(/^Retention of audit log: .*36500/);
    expect((await settings())['retention.auditDays']).toBe(365);
    await section.scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'settings-retention');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const found = await seriousViolations(page);
      expect(found, `settings (${scheme}): ${JSON.stringify(found, null, 1)}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
