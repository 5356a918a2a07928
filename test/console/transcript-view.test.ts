/**
 * The agent's own words in the console, in Chromium against the real `serve` run for a user whose
 * HOME is a temp directory: a Claude Code session seen through its hooks, whose transcript (under
 * ~/.claude/projects, as `transcript_path` names it) holds the reply. The timeline shows the reply
 * as text and the turn's tokens, plumbing only behind the details toggle; the sessions table at
 * 900×600 shows every column (a layout made for it) with each session titled by its first prompt,
 * the model, the tokens and the cost. axe-core finds no serious violation in either theme.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seriousViolations } from './support/axe';
import { launchChromium } from './support/browser';
import { ClaudeSession } from './support/claude-hooks';
import { ensureConsoleBuilt } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type ServeProcess } from './support/serve-process';

let daemon: ServeProcess;
let browser: Browser;
let page: Page;
let home: string;
const pageErrors: string[] = [];

const billing = { id: '7a1c0e52-3b4d-4e6f-9a8b-0c1d2e3f4a5b', cwd: '/home/dev/projects/billing' };
const docs = { id: '2f3e4d5c-6b7a-4980-a1b2-c3d4e5f6a7b8', cwd: '/home/dev/projects/docs-site' };
const REPLY = 'The rounding test passes now: totals round half to even, and the flaky case is pinned.';

const line = (v: unknown): string => `${JSON.stringify(v)}\n`;

beforeAll(async () => {
  ensureConsoleBuilt();
  home = mkdtempSync(join(tmpdir(), 'aep-console-home-'));
  daemon = await startServe({ env: { HOME: home } });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 900, height: 600 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(daemon.consoleUrl.replace('/#token=', '/?skipWizard=1#token='));
  await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  if (daemon) removeDataDir(daemon.dataDir);
  if (home) rmSync(home, { recursive: true, force: true });
  disposeCli();
});

describe("the agent's own words, read from its transcript", () => {
  test('the timeline shows the reply as text and the turn tokens; plumbing waits behind the details toggle', async () => {
    const dir = join(home, '.claude', 'projects', '-home-dev-projects-billing');
    mkdirSync(dir, { recursive: true });
    const transcript = join(dir, `${billing.id}.jsonl`);
    const s = new ClaudeSession(daemon, billing.id, billing.cwd);
    const post = (event: string, fields: Record<string, unknown> = {}) => s.post(event, { transcript_path: transcript, ...fields });
    await post('SessionStart', { source: 'startup', model: 'claude-sonnet' });
    await post('UserPromptSubmit', { prompt: 'Fix the flaky invoice rounding test' });
    appendFileSync(transcript, line({ type: 'user', message: { role: 'user', content: 'Fix the flaky invoice rounding test' } }));
    appendFileSync(transcript, line({ type: 'assistant', message: { id: 'msg_1', model: 'claude-opus-5-5', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }], usage: { input_tokens: 1200, output_tokens: 40 } } }));
    const input = { command: 'npm test -- rounding' };
    await post('PreToolUse', { tool_name: 'Bash', tool_input: input, tool_use_id: 'toolu_1' });
    await post('PostToolUse', { tool_name: 'Bash', tool_input: input, tool_response: { stdout: 'PASS rounding', stderr: '', interrupted: false }, tool_use_id: 'toolu_1' });
    appendFileSync(transcript, line({ type: 'assistant', message: { id: 'msg_2', model: 'claude-opus-5-5', content: [{ type: 'text', text: REPLY }], usage: { input_tokens: 1400, output_tokens: 60 } } }));
    appendFileSync(transcript, line({ type: 'cost-state', totalCostUSD: 0.0421 }));
    await post('Stop', { stop_hook_active: false });

    await page.goto(`${daemon.url}/?skipWizard=1#/sessions/${billing.id}`);
    const rows = page.locator('[data-testid=timeline-row]');
    const reply = rows.filter({ hasText: REPLY.slice(0, 40) });
    await reply.waitFor();
    expect(await reply.getAttribute('data-kind')).toBe('reply');
    expect(await rows.locator('.tl-title').allInnerTexts()).toContain('$ npm test -- rounding');
    const head = rows.filter({ has: page.locator('.tl-turn-facts') }).first();
    expect(await head.locator('.tl-turn-facts').innerText()).toContain('2.7k tokens');
    // The reply, read after the Stop hook that ended its run, reads before that run's end.
    const kinds = await rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-kind')));
    expect(kinds.indexOf('reply')).toBe(kinds.indexOf('run-end') - 1);
    // Usage reports are plumbing: hidden until the toggle.
    expect(await page.locator('[data-testid=timeline-row][data-type="x.claude-code.usage.reported"]').count()).toBe(0);
    await shootBothThemes(page, 'transcript-timeline-900');
    await page.getByTestId('toggle-details').click();
    await page.locator('[data-testid=timeline-row][data-type="x.claude-code.usage.reported"]').first().waitFor();
    await page.getByTestId('toggle-details').click();

    expect(await page.getByTestId('session-heading').innerText()).toBe('Fix the flaky invoice rounding test');
    await reply.click();
    expect(await page.getByTestId('event-detail').innerText()).toContain(REPLY);
    await shootBothThemes(page, 'transcript-reply-detail-900');
  });

  test('at 900×600 the sessions table keeps every column in view, each session titled, with model, tokens and cost', async () => {
    const other = new ClaudeSession(daemon, docs.id, docs.cwd);
    await other.post('SessionStart', { source: 'startup', model: 'claude-haiku', transcript_path: join(home, '.claude', 'projects', 'none.jsonl') });
    await other.post('UserPromptSubmit', { prompt: 'Update the changelog for 2.4', transcript_path: join(home, '.claude', 'projects', 'none.jsonl') });

    await page.goto(`${daemon.url}/?skipWizard=1#/sessions`);
    const titles = page.getByTestId('session-title');
    await titles.filter({ hasText: 'Update the changelog for 2.4' }).waitFor();
    await titles.filter({ hasText: 'Fix the flaky invoice rounding test' }).waitFor();
    const billingRow = page.locator(`[data-testid=session-row][data-session="${billing.id}"]`);
    await billingRow.getByTestId('session-cost').waitFor();
    expect(await billingRow.getByTestId('session-model').innerText()).toBe('claude-opus-5-5');
    expect(await billingRow.getByTestId('token-usage').innerText()).toContain('2.7k tokens');
    expect(await billingRow.getByTestId('session-cost').innerText()).toContain('$0.042');

    // Every cell of every row lies inside the window and the table does not scroll sideways.
    const overflow = await page.evaluate(() => {
      const wrap = document.querySelector('.table-wrap') as HTMLElement;
      const cells = [...document.querySelectorAll('[data-testid=session-row] td')].map((td) => td.getBoundingClientRect());
      return { scrolls: wrap.scrollWidth > wrap.clientWidth, outside: cells.filter((r) => r.right > window.innerWidth || r.left < 0 || r.width === 0).length, cells: cells.length };
    });
    expect(overflow).toEqual({ scrolls: false, outside: 0, cells: 14 });
    await shootBothThemes(page, 'transcript-sessions-900');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const found = await seriousViolations(page);
      expect(found, `${scheme}: ${JSON.stringify(found, null, 1)}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(pageErrors).toEqual([]);
  });

  test('Settings turns transcript reading off and on, through the daemon', async () => {
    const setting = async (): Promise<unknown> => {
      const res = await fetch(`${daemon.url}/api/settings`, { headers: { authorization: `Bearer ${daemon.operatorToken}` } });
      return ((await res.json()) as Record<string, unknown>)['features.transcripts'];
    };
    await page.goto(`${daemon.url}/?skipWizard=1#/settings`);
    const toggle = page.getByRole('checkbox', { name: 'Read agent transcripts' });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    // The switch shows the daemon's answer: it flips once the change is saved.
    await toggle.click();
    await expect.poll(setting).toBe(false);
    await expect.poll(() => toggle.isChecked()).toBe(false);
    await shootBothThemes(page, 'transcript-setting-900');
    await toggle.click();
    await expect.poll(setting).toBe(true);
    await expect.poll(() => toggle.isChecked()).toBe(true);
  });
});
