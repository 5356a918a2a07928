/**
 * Launched sessions from the console, in Chromium against the real `serve`: the mock ACP agent
 * (test/support/mock-acp-agent.mjs) stands in for Claude Code through the agent command override
 * setting. Start it from New session, see its tool call live, answer its permission in the
 * inbox, cancel a turn; then the send modes: mid-turn steering off → queue only, on → Send now →
 * Steered; a queued message edited and withdrawn.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
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
const workdir = mkdtempSync(join(tmpdir(), 'aep-console-launch-'));

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const at = (hash: string): string => `${daemon.url}/?skipWizard=1${hash}`;
const useAgent = (...args: string[]) => api('PATCH', '/api/settings', { 'agents.claude-code.command': [process.execPath, MOCK, ...args] });

/** Starts a session through the New session dialog; returns its id (from the address). */
async function launchFromConsole(prompt: string): Promise<string> {
  await page.goto(at('#/sessions'));
  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  await dialog.locator('[data-testid=agent-option][data-agent=claude-code] input:not([disabled])').check();
  await dialog.getByTestId('launch-cwd').fill(workdir);
  await dialog.getByTestId('launch-prompt').fill(prompt);
  await dialog.getByTestId('launch-start').click();
  await page.waitForURL(/#\/sessions\/.+/);
  return decodeURIComponent(new URL(page.url()).hash.replace('#/sessions/', ''));
}

beforeAll(async () => {
  ensureConsoleBuilt();
  daemon = await startServe();
  await api('PATCH', '/api/settings', { 'capture.ceiling': 'full' });
  await api('PUT', '/api/steering', { enabled: true });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
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

describe('launched sessions from the console', () => {
  test('New session lists the agents with how to get the missing ones, and refuses a folder that does not exist', async () => {
    await useAgent('--mode=permission');
    await page.goto(at('#/sessions'));
    await page.getByTestId('new-session').click();
    const dialog = page.getByTestId('new-session-dialog');
    await dialog.locator('[data-testid=agent-option]').first().waitFor();
    expect(await dialog.locator('[data-testid=agent-option][data-agent=claude-code]').innerText()).toContain('command from settings');
    const missing = dialog.locator('[data-testid=agent-option].agent-missing');
    if ((await missing.count()) > 0) expect(await missing.first().innerText()).toContain('To get it:');
    await shootBothThemes(page, 'launch-dialog');
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.locator('[data-testid=agent-option][data-agent=claude-code] input').check();
    await dialog.getByTestId('launch-cwd').fill(join(workdir, 'no-such-folder'));
    await dialog.getByTestId('launch-start').click();
    await dialog.getByTestId('launch-error').waitFor();
    // The refusal (400) is the one failed load this test caused on purpose.
    expect(pageErrors.splice(0)).toEqual([expect.stringContaining('400')]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // Focus returns to the button that opened the dialog.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('new-session');
  });

  test('start a session, see its tool call live, answer its permission in the inbox, cancel a turn', async () => {
    await useAgent('--mode=permission', '--turn-delay=400');
    const session = await launchFromConsole('List the files');
    await page.locator('.session-badges [data-testid=launch-badge][data-launched=true]').waitFor();
    await page.locator('[data-testid=timeline-row][data-kind=tool]', { hasText: 'echo mock' }).waitFor();

    await page.goto(at('#/inbox'));
    const card = page.locator(`[data-testid=attention-card][data-state=open]`);
    await card.waitFor();
    expect(await card.innerText()).toContain('echo mock');
    await shootBothThemes(page, 'launch-permission');
    await card.getByTestId('answer-allow_once').click();
    await page.locator('[data-testid=attention-card][data-state=open]').waitFor({ state: 'detached' });

    await page.goto(at(`#/sessions/${encodeURIComponent(session)}`));
    await page.locator('[data-testid=timeline-row][data-kind=run-end]', { hasText: 'Run finished' }).waitFor();
    const row = page.locator('[data-testid=timeline-row][data-kind=tool]', { hasText: 'echo mock' });
    expect(await row.locator('.tl-status').innerText()).toContain('done');

    // Idle: the composer offers one way, and says the message starts the next turn.
    await page.getByTestId('launched-text').fill('Now count them');
    expect(await page.getByTestId('composer-says').innerText()).toContain('starts its next turn now');
    expect(await page.locator('[data-testid^=mode-]').count()).toBe(0);
    await page.getByTestId('launched-send').click();
    // The new turn waits at its permission prompt: stop it.
    await page.getByTestId('cancel-turn').waitFor();
    await shootBothThemes(page, 'launch-generating');
    await page.getByTestId('cancel-turn').click();
    await page.getByRole('dialog', { name: 'Stop the running turn?' }).getByRole('button', { name: 'Stop turn' }).click();
    await page.locator('[data-testid=timeline-row][data-kind=run-end]', { hasText: 'Run cancelled' }).waitFor();
    await page.getByTestId('cancel-turn').waitFor({ state: 'detached' });
    const messages = page.locator('[data-testid=input-item]');
    expect(await messages.count()).toBeGreaterThanOrEqual(1);
  });

  test('mid-turn steering off: a generating session offers only Queue and Stop and send', async () => {
    await useAgent('--steer=fold', '--turn-delay=4000');
    await api('PUT', '/api/mid-turn-steering', { enabled: false });
    await launchFromConsole('Write the report');
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('launched-text').fill('Also add a summary');
    await page.getByTestId('mode-queue').waitFor();
    expect(await page.getByTestId('mode-now').count()).toBe(0);
    expect(await page.getByTestId('mode-stop').count()).toBe(1);
    expect(await page.getByTestId('composer-says').innerText()).toContain('Queued for the next turn');
    await shootBothThemes(page, 'launch-queue-only');
  });

  test('a queued message can be edited and withdrawn before it is sent; it settles Dropped (withdrawn)', async () => {
    await page.getByTestId('mode-queue').click();
    await page.getByTestId('launched-send').click();
    const item = page.getByTestId('pending-item');
    await item.waitFor();
    expect(await item.getByTestId('pending-text').innerText()).toBe('Also add a summary');
    await item.getByTestId('pending-edit').click();
    await item.getByTestId('pending-edit-text').fill('Also add a one-line summary');
    await item.getByTestId('pending-save').click();
    await page.locator('[data-testid=pending-text]', { hasText: 'Also add a one-line summary' }).waitFor();
    await shootBothThemes(page, 'launch-pending');
    await item.getByTestId('pending-withdraw').click();
    await item.waitFor({ state: 'detached' });
    const chip = page.locator('[data-testid=input-item]', { hasText: 'summary' }).getByTestId('input-chip');
    await page.locator('[data-testid=input-item][data-phase=dropped]').waitFor();
    expect(await chip.innerText()).toBe('Dropped (withdrawn)');
  });

  test('mid-turn steering on: Send now steers the running turn and the message shows Steered', async () => {
    await api('PUT', '/api/mid-turn-steering', { enabled: true });
    await launchFromConsole('Refactor the parser');
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('launched-text').fill('Keep the public API unchanged');
    await page.getByTestId('mode-now').click();
    // The composer commits to delivery, never to folding: the agent decides.
    const says = await page.getByTestId('composer-says').innerText();
    expect(says).toContain('Goes to the agent now');
    expect(says).toMatch(/the agent decides whether it joins the running turn or runs next/i);
    expect(says).not.toMatch(/tool boundary|mid-turn/i);
    expect(await page.getByTestId('steer-badge').innerText()).not.toMatch(/tool boundary/i);
    await shootBothThemes(page, 'launch-send-now');
    await page.getByTestId('launched-send').click();
    await page.locator('[data-testid=input-item][data-phase=steered]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid=input-item][data-phase=steered]').getByTestId('input-chip').innerText()).toBe('Steered');
    await shootBothThemes(page, 'launch-steered');
  });

  test('an agent that runs Send now as its next turn (deferred): the message reads like a queued one arriving, no error', async () => {
    await useAgent('--steer=defer', '--turn-delay=4000');
    await launchFromConsole('Write the changelog');
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('launched-text').fill('Mention the new flag');
    await page.getByTestId('mode-now').click();
    await page.getByTestId('launched-send').click();
    const item = page.locator('[data-testid=input-item]', { hasText: 'Mention the new flag' });
    await page.locator('[data-testid=input-item][data-phase=prompted]', { hasText: 'Mention the new flag' }).waitFor({ timeout: 30_000 });
    expect(await item.getByTestId('input-chip').innerText()).toBe('Sent as next prompt');
    expect(await page.locator('[data-testid=input-item][data-phase=errored]').count()).toBe(0);
    // Both answers, in submission order, and no failed run.
    await page.locator('[data-testid=timeline-row][data-kind=run-end]').nth(1).waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid=timeline-row][data-kind=run-end]', { hasText: /failed/i }).count()).toBe(0);
    await shootBothThemes(page, 'launch-deferred');
  });

  test('the page logged no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
