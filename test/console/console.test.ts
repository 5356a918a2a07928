/**
 * The console end to end: the built renderer in Debian Chromium against the real `serve` on
 * port 0 with a temp data directory. All traffic comes from the real hook routes, POSTed the way
 * Claude Code's HTTP hooks do. The flows share one daemon and one page, in order, like an
 * operator's afternoon: a session appears, steering is switched on, instructions are delivered
 * and dropped, a permission prompt is allowed, the audit shows it all, the network drops.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/browser';
import { ClaudeSession } from './support/claude-hooks';
import { ensureConsoleBuilt } from './support/console-build';
import { shootBothThemes } from './support/screens';
import { disposeCli, removeDataDir, startServe, type ServeProcess } from './support/serve-process';
import { installSocketSwitch, type SocketSwitch } from './support/socket-switch';

let daemon: ServeProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let socket: SocketSwitch;
const pageErrors: string[] = [];

const alpha = { id: '7f3c9a10-5b2e-4c1d-9e8f-a1b2c3d4e5f6', cwd: '/home/dev/projects/payments-api' };
const beta = { id: '0d4e8b21-77aa-4f10-b3c2-9a8b7c6d5e4f', cwd: '/home/dev/projects/docs-site' };
let a: ClaudeSession;
let b: ClaudeSession;

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.operatorToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A console address on the same document: the wizard-skip flag stays, so only the route changes. */
const at = (hash: string): string => `${daemon.url}/?skipWizard=1${hash}`;
const row = (session: string) => page.locator(`[data-testid=session-row][data-session="${session}"]`);

beforeAll(async () => {
  ensureConsoleBuilt();
  daemon = await startServe();
  a = new ClaudeSession(daemon, alpha.id, alpha.cwd);
  b = new ClaudeSession(daemon, beta.id, beta.cwd);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1360, height: 860 }, acceptDownloads: true, colorScheme: 'light' });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400) pageErrors.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  socket = await installSocketSwitch(page);
  // The first-run wizard has its own tests; these start from the console itself.
  await page.goto(daemon.consoleUrl.replace('/#token=', '/?skipWizard=1#token='));
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  if (daemon) removeDataDir(daemon.dataDir);
  disposeCli();
});

describe('console against the real daemon', () => {
  test('takes the token from the fragment, keeps it out of the address bar, and guides a new user to setup', async () => {
    await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
    expect(page.url()).not.toContain('token');
    // The token went into the daemon's HttpOnly cookie; no script-readable storage keeps it.
    const cookie = (await context.cookies(daemon.url)).find((c) => c.name === `aep-console-${new URL(daemon.url).port}`);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie!.value).not.toContain(daemon.operatorToken);
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(daemon.operatorToken);
    const empty = page.getByText('No sessions yet: set up your agents');
    await empty.waitFor();
    expect(await page.getByRole('link', { name: 'Set up your agents' }).getAttribute('href')).toBe('#/setup');
    await shootBothThemes(page, 'sessions-empty');
  });

  test('a session appears live and its state follows its hooks', async () => {
    await a.start();
    await a.prompt('Add retries with backoff to the webhook sender');
    await row(alpha.id).waitFor();
    await row(alpha.id).locator('[data-testid=session-state][data-phase=working]').waitFor();
    expect(await row(alpha.id).innerText()).toContain('payments-api');
    await a.bash('npm test -- webhook');
    await a.stop();
    await row(alpha.id).locator('[data-testid=session-state][data-phase=idle]').waitFor();
    // Steering is off by default, and the badge says so.
    expect(await row(alpha.id).locator('[data-testid=steerability]').getAttribute('data-kind')).toBe('off');
  });

  test('the kill switch turns on only after confirmation, and off in one click', async () => {
    const kill = page.getByTestId('kill-switch');
    await expect(kill.getAttribute('data-state')).resolves.toBe('off');
    await kill.click();
    const dialog = page.getByRole('dialog', { name: 'Turn steering on?' });
    await dialog.waitFor();
    await shootBothThemes(page, 'kill-switch-confirm');
    // Cancelling leaves it off.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await api<{ enabled: boolean }>('GET', '/api/steering')).enabled).toBe(false);
    await kill.click();
    await dialog.getByRole('button', { name: 'Turn steering on' }).click();
    await page.locator('[data-testid=kill-switch][data-state=on]').waitFor();
    expect((await api<{ enabled: boolean }>('GET', '/api/steering')).enabled).toBe(true);
    await row(alpha.id).locator('[data-testid=steerability][data-kind=ready]').waitFor();
    // Read from the relay's live roster; the session is idle, and the badge says what that means.
    expect(await row(alpha.id).locator('[data-testid=steerability]').getAttribute('aria-label')).toBe('next hook (the agent is idle: this reaches it when its next prompt starts)');

    await kill.click();
    await page.locator('[data-testid=kill-switch][data-state=off]').waitFor();
    expect((await api<{ enabled: boolean }>('GET', '/api/steering')).enabled).toBe(false);
    expect(await page.getByRole('dialog').isVisible()).toBe(false);

    await kill.click();
    await dialog.getByRole('button', { name: 'Turn steering on' }).click();
    await page.locator('[data-testid=kill-switch][data-state=on]').waitFor();
    await shootBothThemes(page, 'sessions');
  });

  test('an instruction is accepted, then delivered in the next hook reply with its moment', async () => {
    await row(alpha.id).click();
    await page.getByTestId('composer').waitFor();
    const text = 'The staging database is read-only; use the fixtures in test/data.';
    await page.getByTestId('composer').fill(text);
    expect(await page.getByTestId('composer-counter').innerText()).toBe(`${text.length} / 10,000`);
    await page.getByTestId('composer').press('Control+Enter');
    const item = page.locator('[data-testid=instruction]').first();
    await page.locator('[data-testid=instruction][data-phase=accepted]').waitFor();
    expect(await page.getByTestId('composer').inputValue()).toBe('');

    const reply = await a.preTool('npm run migrate');
    expect((reply.body.hookSpecificOutput as { additionalContext?: string } | undefined)?.additionalContext).toContain(text);
    await page.locator('[data-testid=instruction][data-phase=delivered]').waitFor();
    expect(await item.innerText()).toContain('delivered at PreToolUse');
    expect(await item.getByTestId('instruction-detail').innerText()).toMatch(/Handed to the agent in the PreToolUse reply after .* in the queue/);
    // The timeline shows the same instruction, settled from the stream.
    await page.locator('[data-testid=timeline-row][data-kind=instruction]', { hasText: 'delivered at PreToolUse' }).waitFor();
    await shootBothThemes(page, 'session-detail');
    // The row opens its events verbatim: the command, its ack and its outcome.
    await page.locator('[data-testid=timeline-row][data-kind=instruction]').click();
    const detail = page.getByRole('region', { name: 'Event detail' });
    await detail.waitFor();
    // The readable form first (the instruction text), the stored events one click away.
    expect(await detail.getByTestId('row-content').innerText()).toContain(text);
    await detail.locator('.detail-raw > summary').click();
    expect(await detail.innerText()).toContain('x.claude-code.instruction.delivered');
    await shootBothThemes(page, 'session-event-detail');
    await page.keyboard.press('Escape');
    expect(await detail.count()).toBe(0);
  });

  test('an instruction still queued when its session ends is dropped, with the reason', async () => {
    await b.start();
    await b.prompt('Fix the broken links in the guide');
    await page.goto(at(`#/sessions/${beta.id}`));
    await page.locator('[data-testid=steerability][data-kind=ready]').waitFor();
    await page.getByTestId('composer').fill('Skip the changelog; it is generated.');
    await page.getByTestId('composer-send').click();
    await page.locator('[data-testid=instruction][data-phase=accepted]').waitFor();
    await b.end();
    await page.locator('[data-testid=instruction][data-phase=dropped]').waitFor();
    const item = page.locator('[data-testid=instruction]').first();
    expect(await item.innerText()).toContain('dropped (session-ended)');
    await page.locator('[data-testid=session-state][data-phase=ended]').waitFor();
    expect(await page.locator('[data-testid=steerability]').getAttribute('data-kind')).toBe('ended');
  });

  test('a permission prompt answered Allow from the inbox reaches the held hook reply', async () => {
    await a.prompt('Clean the build folder');
    const held = a.permission('rm -rf build/');
    await page.goto(at('#/inbox'));
    await page.getByTestId('inbox-count').waitFor();
    expect(await page.getByTestId('inbox-count').innerText()).toBe('1');
    const card = page.locator('[data-testid=attention-card][data-state=open]');
    await card.waitFor();
    await shootBothThemes(page, 'inbox');
    await card.getByTestId('answer-allow').click();
    const reply = await held;
    const decision = (reply.body.hookSpecificOutput as { decision?: { behavior?: string } } | undefined)?.decision;
    expect(decision?.behavior).toBe('allow');
    await page.locator('[data-testid=attention-card][data-state=answered]').waitFor();
    expect(await page.getByTestId('inbox-count').count()).toBe(0);

    // A typed reply denies with the operator's words as the reason (AEP-0008).
    const second = a.permission('aws s3 rm s3://prod-assets --recursive');
    const open = page.locator('[data-testid=attention-card][data-state=open]');
    await open.waitFor();
    await open.getByLabel('Reply with text').fill('Use the staging bucket instead.');
    await open.getByRole('button', { name: 'Reply' }).click();
    const denied = (await second).body.hookSpecificOutput as { decision?: { behavior?: string; message?: string } } | undefined;
    expect(denied?.decision).toEqual({ behavior: 'deny', message: 'Use the staging bucket instead.' });
    await page.locator('[data-testid=attention-card][data-state=open]').waitFor({ state: 'detached' });

    // A question with choices arrives as a form; the chosen values reach the held reply.
    const asked = a.ask([
      { header: 'Database', question: 'Which database should the tests use?', options: ['SQLite', 'PostgreSQL'] },
      { header: 'Checks', question: 'Which checks should run?', options: ['Lint', 'Types', 'Unit'], multiSelect: true },
    ]);
    const form = page.locator('[data-testid=attention-card][data-state=open]');
    await form.waitFor();
    expect(await form.getByRole('button', { name: 'Submit answer' }).isDisabled()).toBe(true);
    await form.getByRole('radio', { name: 'PostgreSQL' }).check();
    await form.getByRole('checkbox', { name: 'Lint' }).check();
    await form.getByRole('checkbox', { name: 'Unit' }).check();
    await shootBothThemes(page, 'inbox-form');
    await form.getByRole('button', { name: 'Submit answer' }).click();
    const formReply = JSON.stringify((await asked).body);
    expect(formReply).toContain('"behavior":"allow"');
    expect(formReply).toContain('PostgreSQL');
    await page.locator('[data-testid=attention-card][data-state=open]').waitFor({ state: 'detached' });
  });

  test('an unanswered permission prompt is shown as timed out once the hook stops waiting', async () => {
    await api('PATCH', '/api/settings', { 'permissions.holdMs': 1_000 });
    try {
      const reply = await a.permission('git push --force');
      // No answer: the hook fell back to the agent's own prompt (an empty decision).
      expect((reply.body.hookSpecificOutput as { decision?: unknown } | undefined)?.decision).toBeUndefined();
      const card = page.locator('[data-testid=attention-card][data-state=timeout]');
      await card.waitFor();
      expect(await card.innerText()).toContain('git push --force');
      expect(await card.innerText()).toContain('timed out');
      expect(await page.getByTestId('inbox-count').count()).toBe(0);
    } finally {
      await api('PATCH', '/api/settings', { 'permissions.holdMs': 50_000 });
    }
  });

  test('the audit view lists those actions and exports them as JSONL and CSV', async () => {
    await page.goto(at('#/audit'));
    await page.locator('[data-testid=audit-row]').first().waitFor();
    const actions = await page.locator('[data-testid=audit-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    for (const expected of ['steering.enabled', 'steering.disabled', 'instruct.delivered', 'instruct.dropped']) {
      expect(actions).toContain(expected);
    }
    expect(actions).toContain('permission.decision');
    await shootBothThemes(page, 'audit');

    const [jsonl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-jsonl').click()]);
    expect(jsonl.suggestedFilename()).toMatch(/\.jsonl$/);
    const lines = readFileSync((await jsonl.path())!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { action: string });
    expect(lines.map((l) => l.action)).toEqual(expect.arrayContaining(['steering.enabled', 'instruct.delivered', 'instruct.dropped']));

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
    expect(csv.suggestedFilename()).toMatch(/\.csv$/);
    const text = readFileSync((await csv.path())!, 'utf8');
    expect(text.split('\r\n')[0]).toBe('id,time,actor,surface,action,session,commandId,outcome,detail');
    expect(text).toContain('instruct.delivered');

    // Filtering narrows the table to the matching rows.
    await page.getByPlaceholder('e.g. instruct.delivered').fill('instruct.dropped');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=audit-row]')].every((r) => r.getAttribute('data-action') === 'instruct.dropped'));
    expect(await page.locator('[data-testid=audit-row]').count()).toBeGreaterThan(0);
  });

  test('a dropped connection shows a banner and resumes without duplicates or gaps', async () => {
    // Tool arguments are content: raise the capture ceiling so the timeline can name each call.
    await api('PATCH', '/api/settings', { 'capture.ceiling': 'redacted' });
    await page.goto(at(`#/sessions/${alpha.id}`));
    await a.bash('echo before-1');
    await page.locator('[data-testid=timeline-row]', { hasText: 'echo before-1' }).waitFor();
    const opened = socket.opened();

    await socket.cut();
    await page.getByTestId('disconnected-banner').waitFor();
    await shootBothThemes(page, 'disconnected');
    const missed = ['echo during-1', 'echo during-2', 'echo during-3'];
    for (const command of missed) await a.bash(command);

    socket.restore();
    // Skip the rest of the backoff wait when the banner is still up (it may already have reconnected).
    await page.evaluate(() => document.querySelector<HTMLButtonElement>('[data-testid=disconnected-banner] button')?.click());
    await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
    expect(socket.opened()).toBeGreaterThan(opened);
    await a.bash('echo after-1');
    await page.locator('[data-testid=timeline-row]', { hasText: 'echo after-1' }).waitFor();
    expect(await page.getByTestId('disconnected-banner').count()).toBe(0);

    // Each command exactly once, in order, with nothing missing in between.
    const tools = await page.locator('[data-testid=timeline-row][data-kind=tool]').allInnerTexts();
    const commands = tools.map((t) => /echo [a-z]+-\d/.exec(t)?.[0]).filter(Boolean);
    expect(commands).toEqual(['echo before-1', ...missed, 'echo after-1']);
    // The held history is gap-free: seqs of this epoch run 1..n with no repeats.
    const seqs = await page.evaluate((id) => {
      const store = (window as unknown as { aepConsole: { detail: Map<string, { events: { seq?: number; epoch?: number }[] }> } }).aepConsole;
      return store.detail.get(id)!.events.filter((e) => typeof e.seq === 'number').map((e) => e.seq!);
    }, alpha.id);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  });

  test('settings show the daemon values and theme changes apply at once', async () => {
    await page.goto(at('#/settings'));
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(await page.getByLabel('Capture ceiling').inputValue()).toBe('redacted');
    await shootBothThemes(page, 'settings');
    await page.getByRole('radio', { name: 'Dark' }).click();
    await page.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'dark');
    expect((await api<Record<string, unknown>>('GET', '/api/settings'))['ui.theme']).toBe('dark');
    await page.getByRole('radio', { name: 'System' }).click();
    await page.waitForFunction(() => !document.documentElement.hasAttribute('data-theme'));
  });

  test('rotating the operator token keeps this console working and locks the old token out', async () => {
    await page.goto(at('#/settings'));
    const cookieName = `aep-console-${new URL(daemon.url).port}`;
    const before = (await context.cookies(daemon.url)).find((c) => c.name === cookieName)!.value;
    await page.getByRole('button', { name: 'Rotate…' }).first().click();
    await page.getByRole('dialog', { name: 'Rotate the operator token?' }).getByRole('button', { name: 'Rotate' }).click();
    await page.getByText('The operator token was replaced.').waitFor();
    // This window renewed its cookie for the new token, so a reload still works.
    await expect.poll(async () => (await context.cookies(daemon.url)).find((c) => c.name === cookieName)?.value).not.toBe(before);
    const old = await fetch(`${daemon.url}/api/status`, { headers: { authorization: `Bearer ${daemon.operatorToken}` } });
    expect(old.status).toBe(401);
    // The live socket re-opened with the new token, and the stream still flows.
    await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
    await a.bash('echo after-rotation');
    await page.goto(at(`#/sessions/${alpha.id}`));
    await page.locator('[data-testid=timeline-row]', { hasText: 'echo after-rotation' }).waitFor();
    expect(await page.getByTestId('token-refused-banner').count()).toBe(0);
    await page.reload();
    await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
    await page.locator('[data-testid=timeline-row]', { hasText: 'echo after-rotation' }).waitFor();
  });

  test('the page logged no errors (script, CSP or failed loads)', () => {
    expect(pageErrors).toEqual([]);
  });
});
