/**
 * A Cline session in the console, in Chromium against the real `serve`: the recorded Cline hook
 * payloads posted to `/hooks/cline` (opted in to steering), a stub Cline hub replaying the recorded
 * frames (test/core/cline/stub-hub.ts) found through the discovery file under the daemon's HOME.
 * The session appears with its badge, is steered from the composer (Send now → the hub's
 * `session.send_input` → Steered from `x.cline.input.settled`), Queue is refused with the reason
 * on a plain run, and the badge says "hooks only" once the hub goes away.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { clineHubDiscoveryPath } from '../../common/cline';
import { recordedEvents, startStubHub, type StubHub } from '../core/vendors/cline/stub-hub';
import { launchChromium } from './support/browser';
import { ensureConsoleBuilt } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type ServeProcess } from './support/serve-process';

const S1 = '1796114557302_k1lk8'; // frames-s1: a plain `cline "prompt"` run (interactive: false)
const TASK_START = 'h3-TaskStart-1796114260761-12268.json';
const home = mkdtempSync(join(tmpdir(), 'aep-console-cline-home-'));
let daemon: ServeProcess;
let hub: StubHub;
let hubClosed = false;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const payload = (file: string, session: string): Record<string, unknown> => ({
  ...(JSON.parse(
    readFileSync(new URL(`../fixtures/cline/hook-payloads/${file}`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>),
  sessionContext: { rootSessionId: session },
});

async function api(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${daemon.operatorToken}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function hook(file: string, session: string): Promise<void> {
  const res = await fetch(`${daemon.url}/hooks/cline?instruct=1`, {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.hookToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload(file, session)),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  ensureConsoleBuilt();
  hub = await startStubHub();
  await hub.writeDiscovery(clineHubDiscoveryPath(home));
  hub.answer = (cmd) =>
    cmd.command === 'session.get'
      ? { ok: true, payload: { session: { sessionId: cmd.payload.sessionId, interactive: false } } }
      : { ok: true, payload: {} };
  daemon = await startServe({ env: { HOME: home } });
  await api('PATCH', '/api/settings', { 'capture.ceiling': 'full' });
  await api('PUT', '/api/steering', { enabled: true });
  browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1360, height: 860 },
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
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
  if (!hubClosed) await hub?.close();
  if (daemon) removeDataDir(daemon.dataDir);
  removeDataDir(home);
  disposeCli();
});

describe('a Cline session in the console', () => {
  test('appears, is steered from the composer through the hub, and shows the settled outcome; Queue is refused with the reason; hooks only once the hub goes', async () => {
    await hook(TASK_START, S1);
    await page.goto(`${daemon.url}/?skipWizard=1#/sessions/${encodeURIComponent(S1)}`);
    const badge = page.getByTestId('cline-steer-badge');
    await expect
      .poll(() => badge.textContent(), { timeout: 20_000 })
      .toContain('via the Cline hub');
    const composer = page.getByTestId('cline-composer');
    await composer.getByTestId('mode-now').click();
    await expect
      .poll(() => composer.getByTestId('composer-says').textContent())
      .toContain('next model request');

    const text = 'STEER-MARKER-1 please also say banana';
    await composer.getByTestId('launched-text').fill(text);
    await composer.getByTestId('launched-send').click();
    await expect
      .poll(
        () => hub.commands.filter((c) => c.command === 'session.send_input').map((c) => c.payload),
        { timeout: 20_000 },
      )
      .toEqual([{ sessionId: S1, prompt: text, delivery: 'steer' }]);
    // The recorded steer: the hub lists it as pending, then submits it into the next model request.
    hub.publish(
      recordedEvents('frames-s1.jsonl').filter(
        (e) => e.sessionId === S1 && e.event.startsWith('session.pending_prompt'),
      ),
    );
    const item = page.getByTestId('input-item').filter({ hasText: 'STEER-MARKER-1' });
    await expect.poll(() => item.getAttribute('data-phase'), { timeout: 20_000 }).toBe('steered');
    expect(await item.getByTestId('input-chip').textContent()).toContain('Steered');

    // Queue on a plain `cline "prompt"` run: Cline would drop it, so it is refused with the reason.
    await composer.getByTestId('mode-queue').click();
    await composer.getByTestId('launched-text').fill('later please');
    await composer.getByTestId('launched-send').click();
    const queued = page.getByTestId('input-item').filter({ hasText: 'later please' });
    await expect
      .poll(() => queued.getAttribute('data-phase'), { timeout: 20_000 })
      .toBe('rejected');
    expect(await queued.getByTestId('input-chip').textContent()).toContain('drops queued input');
    expect(hub.commands.filter((c) => c.command === 'session.send_input')).toHaveLength(1);
    await shootBothThemes(page, 'cline-session-steered');

    // The hub goes away: the verbs are withdrawn and the badge says why.
    await hub.close();
    hubClosed = true;
    await expect
      .poll(() => badge.textContent(), { timeout: 30_000 })
      .toContain('hooks only: hub not reachable');
    expect(await composer.getByTestId('composer-says').textContent()).toContain('not reachable');
    await shootBothThemes(page, 'cline-session-hooks-only');
    expect(pageErrors).toEqual([]);
  });
});
