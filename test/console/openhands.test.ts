/**
 * An OpenHands conversation in the console, in Chromium against the real `serve`: the agent server
 * (the stand-in of test/core/vendors/openhands/stub-server.ts) is connected from Settings →
 * OpenHands with control allowed, its running conversation appears as an `openhands` session with
 * its tool events, and a message written in the composer is appended (run:false) and shown Steered
 * once the agent's next step has read it; a pending action's confirmation card is answered from
 * the session (Approve → respond_to_confirmation).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { StubAgentServer } from '../core/vendors/openhands/stub-server';
import { launchChromium } from './support/browser';
import { ensureConsoleBuilt } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type ServeProcess } from './support/serve-process';

let daemon: ServeProcess;
let stub: StubAgentServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

async function api(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

beforeAll(async () => {
  ensureConsoleBuilt();
  stub = new StubAgentServer();
  await stub.start();
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
  await stub?.stop();
  if (daemon) removeDataDir(daemon.dataDir);
  disposeCli();
});

describe('an OpenHands conversation in the console', () => {
  test('is connected from Settings, appears with its tool events, and is steered from the composer', async () => {
    const id = stub.create('Please fix the failing test.');
    stub.step(id);
    await page.goto(`${daemon.url}/?skipWizard=1#/settings`);
    const section = page.getByTestId('openhands-section');
    await section.getByTestId('openhands-url').fill(stub.url);
    await section.getByTestId('openhands-key').fill(stub.key);
    await section.getByTestId('openhands-instruct').check();
    await section.getByTestId('openhands-connect').click();
    await expect.poll(() => section.getByTestId('openhands-state').getAttribute('data-state'), { timeout: 20_000 }).toBe('connected');
    expect(await section.getByTestId('openhands-state').textContent()).toContain('1.43.1');
    await section.scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'openhands-settings-connected');

    await page.goto(`${daemon.url}/?skipWizard=1#/sessions/${encodeURIComponent(id)}`);
    const badge = page.getByTestId('openhands-steer-badge');
    await expect.poll(() => badge.textContent(), { timeout: 20_000 }).toContain('next step of the running agent');
    const composer = page.getByTestId('openhands-composer');
    const text = 'STEER-MARKER-OH use pytest -x, not the whole suite';
    await composer.getByTestId('launched-text').fill(text);
    await composer.getByTestId('launched-send').click();
    await expect.poll(() => stub.posts.filter((p) => p.path.endsWith(`${id}/events`)).map((p) => p.body), { timeout: 20_000 }).toEqual([
      { role: 'user', content: [{ type: 'text', text }], run: false },
    ]);
    const item = page.getByTestId('input-item').filter({ hasText: 'STEER-MARKER-OH' });
    stub.step(id); // the model call in flight at the append: it did not read the message
    stub.step(id); // the next step reads it
    expect(JSON.stringify(stub.conv(id).events.filter((e) => e.kind === 'ActionEvent').at(-1)!.thought)).toContain('STEER-MARKER-OH');
    await expect.poll(() => item.getAttribute('data-phase'), { timeout: 20_000 }).toBe('steered');
    expect(await item.getByTestId('input-chip').textContent()).toContain('Steered');
    await expect.poll(() => page.locator('.session-main').textContent(), { timeout: 20_000 }).toContain('terminal');
    await shootBothThemes(page, 'openhands-session-steered');

    // A pending action in confirmation mode: an answerable card; Approve → respond_to_confirmation.
    const pending = stub.step(id, { confirm: true })!;
    const card = page.getByTestId('attention-card').first();
    await card.waitFor({ timeout: 20_000 });
    expect(await card.textContent()).toContain('OpenHands awaits confirmation for terminal');
    await expect.poll(() => badge.textContent(), { timeout: 20_000 }).toContain('answer the confirmation first');
    await shootBothThemes(page, 'openhands-confirmation-card');
    await card.getByTestId('answer-approve').click();
    await expect.poll(() => stub.posts.at(-1), { timeout: 20_000 }).toEqual({ path: `/api/conversations/${id}/events/respond_to_confirmation`, body: { accept: true } });
    await expect.poll(() => stub.conv(id).events.some((e) => e.kind === 'ObservationEvent' && e.tool_call_id === pending.tool_call_id)).toBe(true);
    await expect.poll(() => page.getByTestId('attention-card').count(), { timeout: 20_000 }).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
