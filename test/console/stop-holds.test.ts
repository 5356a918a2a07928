/**
 * Stop and End session ask before they act, and Stop holds the queue, in Chromium against the
 * real `serve` with a launched session (the mock ACP agent with a long tool call): a message
 * queued from the composer stays queued when the operator confirms Stop; the pending list says
 * "paused", shows how long the message has waited and offers Resume, which sends it. Cancel in a
 * confirmation does nothing. End session, confirmed, ends the session.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AgentInputRecord, PendingList } from '../../common/agent-inputs';
import type { LaunchedSessionInfo } from '../../common/agents';
import { seriousViolations } from './support/axe';
import { launchChromium } from './support/browser';
import { ensureConsoleBuilt, REPO } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type KillableServe as ServeProcess } from './support/serve-process';

let d: ServeProcess;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const MOCK = join(REPO, 'test/support/mock-acp-agent.mjs');
const workdir = mkdtempSync(join(tmpdir(), 'aep-console-stop-'));
const modelLog = join(workdir, 'model.log');

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${d.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const prompts = (): string[] =>
  existsSync(modelLog)
    ? readFileSync(modelLog, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { request: string; prompt?: string })
        .filter((m) => m.request === 'prompt')
        .map((m) => m.prompt ?? '')
    : [];

beforeAll(async () => {
  ensureConsoleBuilt();
  d = await startServe();
  await api('PUT', '/api/steering', { enabled: true });
  await api('PATCH', '/api/settings', {
    'agents.claude-code.command': [process.execPath, MOCK, '--steer=preempt', '--turn-delay=600000', `--model-log=${modelLog}`],
  });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await d?.stop();
  if (d) removeDataDir(d.dataDir);
  disposeCli();
});

describe('Stop holds the queue; Stop and End session ask first', () => {
  test('queue, Stop (cancelled once, then confirmed) → paused with Resume; Resume sends; End session confirmed', async () => {
    const { session } = await api<{ session: string }>('POST', '/api/launch', { agent: 'claude-code', cwd: workdir, prompt: 'Write the report' });
    const enc = encodeURIComponent(session);
    await page.goto(d.consoleUrl.replace('/#token=', `/?skipWizard=1#token=`));
    await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
    await page.goto(`${d.url}/?skipWizard=1#/sessions/${enc}`);
    await page.getByTestId('cancel-turn').waitFor();

    await page.getByTestId('mode-queue').click();
    await page.getByTestId('launched-text').fill('HELD-BY-STOP');
    await page.getByTestId('launched-send').click();
    await page.getByTestId('pending-item').waitFor();
    await expect(page.getByTestId('pending-age').first().textContent()).resolves.toMatch(/^queued (just now|\d+ s ago)$/);

    // Stop asks first; Cancel leaves the turn running.
    await page.getByTestId('cancel-turn').click();
    const stopDialog = page.getByRole('dialog', { name: 'Stop the running turn?' });
    await stopDialog.waitFor();
    await expect(page.getByTestId('confirm-stop-text').textContent()).resolves.toMatch(/held \(paused\)/);
    await shootBothThemes(page, 'stop-confirm');
    expect(await seriousViolations(page)).toEqual([]);
    await stopDialog.getByRole('button', { name: 'Cancel' }).click();
    await stopDialog.waitFor({ state: 'hidden' });
    expect((await api<LaunchedSessionInfo[]>('GET', '/api/launched')).find((s) => s.session === session)?.state).toBe('generating');

    await page.getByTestId('cancel-turn').click();
    await stopDialog.getByRole('button', { name: 'Stop turn' }).click();
    await page.locator('[data-testid=pending-list][data-paused=true]').waitFor();
    await page.getByTestId('pending-resume').waitFor();
    const held = await api<PendingList>('GET', `/api/pending?session=${enc}`);
    expect(held.paused).not.toBeNull();
    expect(held.items.map((i) => i.text)).toEqual(['HELD-BY-STOP']);
    const rows = await api<AgentInputRecord[]>('GET', `/api/inputs?session=${enc}`);
    expect(rows.find((r) => r.text === 'HELD-BY-STOP')?.state).toBe('queued');
    expect(prompts()).toEqual(['Write the report']);
    await expect(page.locator('.section-title', { hasText: 'Waiting to be sent' }).textContent()).resolves.toBe('Waiting to be sent (1) · paused');
    await page.getByText('Queue paused by Stop').waitFor();
    // The idle composer says what sending does to the held queue.
    await page.getByTestId('composer-says').filter({ hasText: 'The queue is held by Stop: this goes first, starts the next turn now and lifts the hold; the 1 held message follows it.' }).waitFor();
    await shootBothThemes(page, 'stop-paused');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByTestId('pending-resume').click();
    await until('the held message sent', async () => (prompts().includes('HELD-BY-STOP') ? true : undefined));
    await page.getByTestId('pending-list').waitFor({ state: 'detached' });
    expect((await api<PendingList>('GET', `/api/pending?session=${enc}`)).paused).toBeNull();

    // End session asks first too.
    await page.getByTestId('end-session').click();
    const endDialog = page.getByRole('dialog', { name: 'End this session?' });
    await endDialog.waitFor();
    await shootBothThemes(page, 'end-confirm');
    await endDialog.getByRole('button', { name: 'Cancel' }).click();
    await endDialog.waitFor({ state: 'hidden' });
    expect((await api<LaunchedSessionInfo[]>('GET', '/api/launched')).find((s) => s.session === session)?.state).not.toBe('ended');
    await page.getByTestId('end-session').click();
    await endDialog.getByRole('button', { name: 'End session' }).click();
    await until('the session ended', async () => ((await api<LaunchedSessionInfo[]>('GET', '/api/launched')).find((s) => s.session === session)?.state === 'ended' ? true : undefined));
    expect(pageErrors).toEqual([]);
  });
});
