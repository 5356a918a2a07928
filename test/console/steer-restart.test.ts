/**
 * The daemon killed mid-steer, in Chromium against the real `serve`: a launched session (the mock
 * ACP agent, test/support/mock-acp-agent.mjs --steer=fold with a long tool call, and --ignore-eof
 * so it outlives its daemon like a stubborn agent) is steered from the console with Send now; while
 * the message is `sent` and not settled the daemon gets SIGKILL (no shutdown runs). Started again on
 * the same data dir, it settles the message `interrupted` (never re-sent: the agent's model log
 * holds the steer once), the console shows "Errored — not re-sent (daemon restarted mid-send)" for
 * it, the turn it cut short is shown failed, the session is shown ended by the crash with the
 * reason, and the old agent process is gone.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AgentInputRecord } from '../../common/agent-inputs';
import type { LaunchedSessionInfo } from '../../common/agents';
import { seriousViolations } from './support/axe';
import { launchChromium } from './support/browser';
import { ensureConsoleBuilt, REPO } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type KillableServe as ServeProcess } from './support/serve-process';

let first: ServeProcess;
let second: ServeProcess | null = null;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const MOCK = join(REPO, 'test/support/mock-acp-agent.mjs');
const workdir = mkdtempSync(join(tmpdir(), 'aep-console-restart-'));
const modelLog = join(workdir, 'model.log');

async function api<T>(d: ServeProcess, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${d.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** True while `pid` runs (a zombie left for its new parent to reap has stopped running). */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(stat, 'utf8'));
  } catch {
    return false;
  }
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

const model = (): { request: string; prompt?: string }[] =>
  existsSync(modelLog) ? readFileSync(modelLog, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { request: string; prompt?: string }) : [];

beforeAll(async () => {
  ensureConsoleBuilt();
  first = await startServe();
  await api(first, 'PUT', '/api/steering', { enabled: true });
  await api(first, 'PUT', '/api/mid-turn-steering', { enabled: true });
  // The tool call runs far longer than the test: the steer stays sent and unsettled until the crash.
  await api(first, 'PATCH', '/api/settings', {
    'agents.claude-code.command': [process.execPath, MOCK, '--steer=fold', '--turn-delay=600000', '--ignore-eof', `--model-log=${modelLog}`],
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
  await second?.stop();
  await first?.stop();
  if (first) removeDataDir(first.dataDir);
  disposeCli();
});

describe('the daemon killed mid-steer', () => {
  test('restarted on the same data: the steer shows Errored — not re-sent, the old agent is gone', async () => {
    const { session } = await api<{ session: string }>(first, 'POST', '/api/launch', { agent: 'claude-code', cwd: workdir, prompt: 'Write the report' });
    const info = (await api<LaunchedSessionInfo[]>(first, 'GET', '/api/launched')).find((s) => s.session === session);
    const pid = info?.pid as number;
    expect(typeof pid).toBe('number');
    expect(running(pid)).toBe(true);

    await page.goto(first.consoleUrl.replace('/#token=', `/?skipWizard=1#token=`));
    await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
    await page.goto(`${first.url}/?skipWizard=1#/sessions/${encodeURIComponent(session)}`);
    await page.getByTestId('cancel-turn').waitFor();
    await page.getByTestId('launched-text').fill('RESTART-STEER-MARKER');
    await page.getByTestId('mode-now').click();
    await page.getByTestId('launched-send').click();

    // Sent to the agent (its concurrent prompt written), no outcome yet.
    const sent = await until('the steer sent', async () => {
      const rows = await api<AgentInputRecord[]>(first, 'GET', `/api/inputs?session=${encodeURIComponent(session)}`);
      const row = rows.find((r) => r.text === 'RESTART-STEER-MARKER');
      return row?.state === 'sent' ? row : undefined;
    });
    expect(sent.outcome).toBeNull();
    await until('the agent to see the steer', async () => (model().some((m) => m.request === 'concurrent-prompt') ? true : undefined));

    // The new daemon listens on another port (port 0): this page cannot follow it; leave it first.
    await page.goto('about:blank');
    await first.kill('SIGKILL');
    // A stubborn agent outlives its daemon: the restart must deal with it.
    expect(running(pid)).toBe(true);

    second = await startServe({ dataDir: first.dataDir });
    await until('the old agent process to be ended', async () => (running(pid) ? undefined : true));

    const rows = await api<AgentInputRecord[]>(second, 'GET', `/api/inputs?session=${encodeURIComponent(session)}`);
    expect(rows.find((r) => r.commandId === sent.commandId)).toMatchObject({
      state: 'settled',
      outcome: 'interrupted',
      reason: expect.stringContaining('not re-sent'),
    });
    const after = (await api<LaunchedSessionInfo[]>(second, 'GET', '/api/launched')).find((s) => s.session === session);
    expect(after?.state).toMatch(/^(ended|resumable)$/);

    await page.goto(second.consoleUrl.replace('/#token=', `/?skipWizard=1#token=`));
    await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
    await page.goto(`${second.url}/?skipWizard=1#/sessions/${encodeURIComponent(session)}`);
    const item = page.locator(`[data-testid=input-item][data-command="${sent.commandId}"]`);
    await page.locator(`[data-testid=input-item][data-command="${sent.commandId}"][data-phase=errored]`).waitFor({ timeout: 30_000 });
    expect(await item.getByTestId('input-chip').innerText()).toBe('Errored — not re-sent (daemon restarted mid-send)');
    expect(await page.getByTestId('launched-composer').innerText()).toMatch(/ended/);
    // The turn the crash cut short is failed in the record, not left running.
    await page.locator('[data-testid=timeline-row][data-type="run.failed"]').waitFor();
    expect(await page.locator('[data-testid=timeline-row][data-kind=prompt]').innerText()).toMatch(/Turn 1[\s\S]*\bfailed\s*$/);
    await shootBothThemes(page, 'steer-restart-interrupted');
    expect(await seriousViolations(page)).toEqual([]);

    // Nothing was re-sent: the agent got the steer once, and no new agent was started for it.
    await new Promise((r) => setTimeout(r, 300));
    expect(model().filter((m) => m.request === 'concurrent-prompt' && m.prompt === 'RESTART-STEER-MARKER')).toHaveLength(1);
    expect((await api<LaunchedSessionInfo[]>(second, 'GET', '/api/launched')).filter((s) => s.state !== 'ended' && s.state !== 'resumable')).toEqual([]);
  });

  test('the page logged no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
