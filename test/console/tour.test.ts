/**
 * The console as a new user meets it, in Chromium against the real `serve` (fresh data dir, a temp
 * HOME) at 1280×800 and 900×600: the sessions list, an observed Claude Code session read from its
 * hooks and transcript, a launched session's composer (Send now, Queue, Stop with a queued
 * message, the paused list, Resume), search for a hyphenated word and a path, Settings and the
 * setup wizard. Every view is shot in light and dark (test-results/screenshots/tour-*) and neither
 * it nor a pane in it scrolls sideways, and no button cuts its label; the page logs no errors.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './support/browser';
import { ClaudeSession } from './support/claude-hooks';
import { ensureConsoleBuilt, REPO } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type ServeProcess } from './support/serve-process';

let daemon: ServeProcess;
let browser: Browser;
let home: string;
const pageErrors: string[] = [];
const MOCK = join(REPO, 'test/support/mock-acp-agent.mjs');
const workdir = mkdtempSync(join(tmpdir(), 'aep-console-tour-'));
const observed = { id: '5d6e7f80-1a2b-4c3d-8e9f-a0b1c2d3e4f5', cwd: '/home/dev/projects/billing' };
const REPLY = 'The rounding test passes now: src/billing/round-half.ts rounds half to even, and the flaky case is pinned.';
const SIZES = [
  { name: '1280', width: 1280, height: 800 },
  { name: '900', width: 900, height: 600 },
] as const;

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const line = (v: unknown): string => `${JSON.stringify(v)}\n`;

/** Nothing in the page is wider than the window (no sideways scrolling). */
async function noSidewaysScroll(page: Page, view: string): Promise<void> {
  const wide = await page.evaluate(() => ({
    doc: document.documentElement.scrollWidth,
    win: window.innerWidth,
    panes: [...document.querySelectorAll('.table-wrap, .session-side, .session-main, .composer, .card, .segmented')].filter((t) => t.scrollWidth > t.clientWidth + 1).map((t) => t.className),
    // A button whose label does not fit is cut off.
    buttons: [...document.querySelectorAll('button')].filter((b) => b.getBoundingClientRect().width > 0 && b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent),
  }));
  expect(wide.doc, `${view} scrolls sideways`).toBeLessThanOrEqual(wide.win);
  expect(wide.panes, `${view}: these scroll sideways`).toEqual([]);
  expect(wide.buttons, `${view}: these buttons cut their label`).toEqual([]);
}

async function shoot(page: Page, size: string, view: string): Promise<void> {
  await noSidewaysScroll(page, `${view} at ${size}`);
  await shootBothThemes(page, `tour-${size}-${view}`);
}

async function openPage(width: number, height: number): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme: 'light', reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  return { context, page };
}

beforeAll(async () => {
  ensureConsoleBuilt();
  home = mkdtempSync(join(tmpdir(), 'aep-console-tour-home-'));
  daemon = await startServe({ env: { HOME: home } });
  browser = await launchChromium();

  // An observed Claude Code session: hooks plus the transcript they point to.
  const dir = join(home, '.claude', 'projects', '-home-dev-projects-billing');
  mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${observed.id}.jsonl`);
  const s = new ClaudeSession(daemon, observed.id, observed.cwd);
  const post = (event: string, fields: Record<string, unknown> = {}) => s.post(event, { transcript_path: transcript, ...fields });
  await post('SessionStart', { source: 'startup', model: 'claude-sonnet' });
  await post('UserPromptSubmit', { prompt: 'Fix the flaky invoice rounding test in src/billing/round-half.ts' });
  appendFileSync(transcript, line({ type: 'user', message: { role: 'user', content: 'Fix the flaky invoice rounding test in src/billing/round-half.ts' } }));
  appendFileSync(transcript, line({ type: 'assistant', message: { id: 'msg_1', model: 'claude-opus-5-5', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm run test-unit' } }], usage: { input_tokens: 1200, output_tokens: 40 } } }));
  const input = { command: 'npm run test-unit -- src/billing/round-half.test.ts' };
  await post('PreToolUse', { tool_name: 'Bash', tool_input: input, tool_use_id: 'toolu_1' });
  await post('PostToolUse', { tool_name: 'Bash', tool_input: input, tool_response: { stdout: 'PASS src/billing/round-half.test.ts\n  round-half: 12 passed', stderr: '', interrupted: false }, tool_use_id: 'toolu_1' });
  appendFileSync(transcript, line({ type: 'assistant', message: { id: 'msg_2', model: 'claude-opus-5-5', content: [{ type: 'text', text: REPLY }], usage: { input_tokens: 1400, output_tokens: 60 } } }));
  appendFileSync(transcript, line({ type: 'cost-state', totalCostUSD: 0.0421 }));
  await post('Stop', { stop_hook_active: false });

  await api('PATCH', '/api/settings', { 'capture.ceiling': 'full', 'agents.claude-code.command': [process.execPath, MOCK, '--steer=native', '--turn-delay=600000'] });
  await api('PUT', '/api/steering', { enabled: true });
  await api('PUT', '/api/mid-turn-steering', { enabled: true });
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  if (daemon) removeDataDir(daemon.dataDir);
  if (home) rmSync(home, { recursive: true, force: true });
  rmSync(workdir, { recursive: true, force: true });
  disposeCli();
});

describe.each(SIZES)('the console at $name', ({ name, width, height }) => {
  let page: Page;
  let context: BrowserContext;
  const at = (hash: string): string => `${daemon.url}/?skipWizard=1${hash}`;

  beforeAll(async () => {
    ({ context, page } = await openPage(width, height));
    await page.goto(daemon.consoleUrl.replace('/#token=', '/?skipWizard=1#token='));
    await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
  });
  afterAll(async () => {
    await context?.close();
  });

  test('sessions list and an observed session', async () => {
    await page.goto(at('#/sessions'));
    await page.getByTestId('session-title').filter({ hasText: 'Fix the flaky invoice rounding test' }).waitFor();
    await shoot(page, name, 'sessions');
    await page.goto(at(`#/sessions/${observed.id}`));
    await page.locator('[data-testid=timeline-row][data-kind=reply]').waitFor();
    await shoot(page, name, 'observed');
  });

  test('a launched session: Send now, Queue, Stop with a queued message, the paused list, Resume', async () => {
    const { session } = await api<{ session: string }>('POST', '/api/launch', { agent: 'claude-code', cwd: workdir, prompt: `Write the release notes (${name})` });
    await page.goto(at(`#/sessions/${encodeURIComponent(session)}`));
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('mode-now').click();
    await page.getByTestId('launched-text').fill('Mention the new --json flag');
    await shoot(page, name, 'launched-send-now');
    await page.getByTestId('mode-queue').click();
    await page.getByTestId('launched-text').fill('Then run the linter');
    await page.getByTestId('launched-send').click();
    await page.getByTestId('pending-item').waitFor();
    await shoot(page, name, 'launched-queued');
    await page.getByTestId('cancel-turn').click();
    const dialog = page.getByRole('dialog', { name: 'Stop the running turn?' });
    await dialog.waitFor();
    await shoot(page, name, 'launched-stop-confirm');
    await dialog.getByRole('button', { name: 'Stop turn' }).click();
    await page.locator('[data-testid=pending-list][data-paused=true]').waitFor();
    await page.getByTestId('composer-says').filter({ hasText: 'held by Stop' }).waitFor();
    await shoot(page, name, 'launched-paused');
    await page.getByTestId('pending-resume').click();
    await page.getByTestId('pending-list').waitFor({ state: 'detached' });
    await page.getByTestId('cancel-turn').waitFor();
    await shoot(page, name, 'launched-resumed');
  });

  test('search: a hyphenated word and a path', async () => {
    for (const [q, view, kinds] of [
      ['round-half', 'search-hyphen', ['Prompt', 'Tool call', 'Tool result', 'Reply']],
      ['src/billing/round-half.ts', 'search-path', ['Prompt', 'Reply']],
    ] as const) {
      await page.goto(at('#/search'));
      await page.getByTestId('search-all').fill(q);
      await page.getByTestId('search-all').press('Enter');
      await page.getByTestId('search-hit').first().waitFor();
      // Each hit says in words what it is: the prompt, a tool call or its result, the reply.
      await expect.poll(async () => new Set(await page.getByTestId('hit-kind').allInnerTexts())).toEqual(new Set(kinds));
      await shoot(page, name, view);
    }
  });

  test('Inbox, Stream and Audit', async () => {
    for (const view of ['inbox', 'stream', 'audit']) {
      await page.goto(at(`#/${view}`));
      await page.locator('.view-title').first().waitFor();
      await shoot(page, name, view);
    }
  });

  test('Settings and the wizard', async () => {
    await page.goto(at('#/settings'));
    await page.getByRole('checkbox', { name: 'Read agent transcripts' }).waitFor();
    await shoot(page, name, 'settings');
    for (const section of ['midturn-section', 'openhands-section']) {
      await page.getByTestId(section).scrollIntoViewIfNeeded();
      await shoot(page, name, `settings-${section.replace('-section', '')}`);
    }
    await page.getByRole('checkbox', { name: 'Read agent transcripts' }).scrollIntoViewIfNeeded();
    await shoot(page, name, 'settings-transcripts');
    await page.goto(`${daemon.url}/#/setup`);
    await page.locator('.wz-title').first().waitFor();
    await shoot(page, name, 'wizard');
  });

  test('the page logged no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
