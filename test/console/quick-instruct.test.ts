/**
 * The quick-instruct window (#/quick-instruct) in Debian Chromium against the real `serve`: clear
 * states while steering is off and while no session can be steered; then the most recent
 * steerable session is preselected, an instruction sent with Ctrl+Enter is shown accepted, and
 * after the agent's next hook (which really carries it) delivered, settled from the stream only.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { InstructionRecord } from '../../common/steering';
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
let optedIn: ClaudeSession;
let watchOnly: ClaudeSession;

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Waits for the sent instruction to reach a phase; a different settled phase fails with what the window shows. */
async function phase(name: string): Promise<void> {
  const item = page.locator('[data-testid=instruction]').first();
  try {
    await page.locator(`[data-testid=instruction][data-phase=${name}]`).waitFor();
  } catch (e) {
    const shown = (await item.count()) ? `${await item.getAttribute('data-phase')}: ${await item.innerText()}` : 'no instruction shown';
    throw new Error(`instruction never ${name} (${shown})`, { cause: e });
  }
}

const blocked = (kind: string) => page.locator(`[data-testid=qi-blocked][data-kind=${kind}]`);

beforeAll(async () => {
  ensureConsoleBuilt();
  daemon = await startHomedServe();
  optedIn = new ClaudeSession(daemon, '3c9e2b71-0f4a-4e5d-8a1b-6c7d8e9f0a1b', join(daemon.home, 'projects', 'payments-api'), 'instruct=1');
  watchOnly = new ClaudeSession(daemon, 'a81f6d02-9b3c-4a7e-b5d4-1e2f3a4b5c6d', join(daemon.home, 'projects', 'docs-site'), '');
  browser = await launchChromium();
  // The size of the tray's small window.
  const context = await browser.newContext({ viewport: { width: 520, height: 560 }, colorScheme: 'light' });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // The token link adopts the token; the window then opens the route as the tray does, skipping first run.
  await page.goto(daemon.consoleUrl.replace('/#token=', '/?skipWizard=1#token='));
  await page.locator('html[data-first-run=skipped]').waitFor({ state: 'attached' });
  await page.goto(`${daemon.url}/?skipWizard=1#/quick-instruct`);
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  daemon?.dispose();
  disposeCli();
});

describe('quick instruct against the real daemon', () => {
  test('says plainly that steering is off, and sends nothing', async () => {
    await page.getByTestId('quick-instruct').waitFor();
    await blocked('steering-off').waitFor();
    expect(await page.getByTestId('qi-steering').getAttribute('data-state')).toBe('off');
    expect(await blocked('steering-off').innerText()).toContain('Nothing is sent to any agent while the steering switch is off.');
    expect(await page.getByTestId('qi-text').count()).toBe(0);
    await shootBothThemes(page, 'quick-instruct-steering-off');
  });

  test('with steering on but only a session that did not opt in, nothing is steerable', async () => {
    await watchOnly.start();
    await watchOnly.prompt('Fix the broken links in the guide');
    await api('PUT', '/api/steering', { enabled: true });
    await page.locator('[data-testid=qi-steering][data-state=on]').waitFor();
    await blocked('none-steerable').waitFor();
    expect(await page.getByTestId('qi-text').isDisabled()).toBe(true);
    expect(await page.getByTestId('qi-help').innerText()).toContain('without the steering opt-in');
    expect(await page.getByTestId('qi-send').isDisabled()).toBe(true);
    await shootBothThemes(page, 'quick-instruct-not-steerable');
  });

  test('the most recent steerable session is preselected, and an instruction goes accepted → delivered', async () => {
    await optedIn.start();
    await optedIn.prompt('Add retries with backoff to the webhook sender');
    // The opted-in session becomes the target on its own, and the block disappears.
    await page.locator(`[data-testid=qi-session] option[value="${optedIn.id}"]`).waitFor({ state: 'attached' });
    await blocked('none-steerable').waitFor({ state: 'detached' });
    await page.locator('[data-testid=qi-text]:not([disabled])').waitFor();
    expect(await page.getByTestId('qi-session').inputValue()).toBe(optedIn.id);
    expect(await page.locator('[data-testid=qi-session] option').count()).toBe(2);

    const text = 'The staging database is read-only; use the fixtures in test/data.';
    await page.getByTestId('qi-text').fill(text);
    expect(await page.getByTestId('qi-counter').innerText()).toBe(`${text.length} / 10,000`);
    await shootBothThemes(page, 'quick-instruct-ready');
    await page.getByTestId('qi-text').press('Control+Enter');
    const item = page.locator('[data-testid=instruction]');
    await phase('accepted');
    expect(await page.getByTestId('qi-text').inputValue()).toBe('');
    expect(await item.count()).toBe(1);
    await shootBothThemes(page, 'quick-instruct-accepted');

    // The agent's next eligible hook carries the instruction back in its reply.
    const reply = await optedIn.preTool('npm run migrate');
    expect((reply.body.hookSpecificOutput as { additionalContext?: string } | undefined)?.additionalContext).toContain(text);
    await phase('delivered');
    expect(await item.innerText()).toContain('delivered at PreToolUse');
    await shootBothThemes(page, 'quick-instruct-delivered');

    // The daemon's record agrees: the instruction was delivered to this session.
    const records = await api<InstructionRecord[]>('GET', `/api/instructions?session=${optedIn.id}`);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ state: 'delivered', moment: 'PreToolUse' });
    // Sent from the tray's window, and audited as such.
    const audit = await api<{ rows: { action: string; surface: string; commandId: string | null }[] }>(
      'GET',
      `/api/audit?session=${encodeURIComponent(optedIn.id)}&action=instruct.command`,
    );
    expect(audit.rows.map((r) => [r.commandId, r.surface])).toEqual([[records[0].commandId, 'tray']]);
    expect(pageErrors).toEqual([]);
  });
});
