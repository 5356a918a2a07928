/**
 * The real Claude Code in the real console (issue 41), with the companion's hooks installed the way
 * the setup wizard recommends (user scope, `--instruct`, by the real installer; hooked-launch-rig.ts)
 * and the built console served by the rig's daemon, signed in through its `#token=` link in
 * headless Chromium:
 * - an observed session (the CLI run by hand in the rig's HOME): the reply the model stub scripted,
 *   read from the transcript the hooks name, is a reply row of the session's timeline, and the
 *   sessions list titles the session by its first prompt;
 * - a session launched through the ACP bridge: a follow-up prompt typed in the console's composer
 *   reaches the model, and the sessions list shows the session as one row, with no "ambiguous"
 *   refusal on the console's socket or on screen.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticConsoleRoute } from '../../main/core/server/static-console';
import { seriousViolations } from '../console/support/axe';
import { launchChromium } from '../console/support/browser';
import { CONSOLE_DIR, ensureConsoleBuilt } from '../console/support/console-build';
import { shootBothThemes } from '../console/support/screens';
import type { CompanionCli } from '../support/companion';
import { isAnthropicAgentRequest, startAnthropicStub } from '../support/model-stubs/anthropic-stub';
import { requestContains } from '../support/model-stubs/stub-server';
import { describeRun, runVendor } from '../support/run-vendor';
import { buildCompanionCli, openHookedRig } from './hooked-launch-rig';
import { closeRigsAfterEach, launchWithPrompt, TERMINAL, type LaunchRig } from './launch-rig';
import { expectOneSession } from './one-session-checks';

closeRigsAfterEach();
let cli: CompanionCli;
let browser: Browser;
beforeAll(async () => {
  ensureConsoleBuilt();
  cli = await buildCompanionCli();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await cli?.dispose();
});

/** What the console's page saw: uncaught errors and every frame on its socket. */
interface ConsolePage {
  readonly page: Page;
  readonly errors: string[];
  readonly frames: string[];
}

/** Serves the built console from the rig's daemon and signs in with the operator token's `#token=` link. */
async function openConsole(rig: LaunchRig): Promise<ConsolePage> {
  rig.d.daemon.context.routes.register(staticConsoleRoute(CONSOLE_DIR, () => rig.d.daemon.port));
  const context = await browser.newContext({ viewport: { width: 1200, height: 760 }, colorScheme: 'light', reducedMotion: 'reduce' });
  const page = await context.newPage();
  const errors: string[] = [];
  const frames: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
  await page.goto(`${rig.d.url}/?skipWizard=1#token=${encodeURIComponent(rig.d.daemon.tokens.operator)}`);
  await page.locator('[data-testid=connection-state][data-phase=open]').waitFor();
  return { page, errors, frames };
}

/** The sessions list's rows for `session`, once it lists the session. */
async function sessionRows(page: Page, session: string) {
  await page.goto(`${new URL(page.url()).origin}/?skipWizard=1#/sessions`);
  const rows = page.locator(`[data-testid=session-row][data-session="${session}"]`);
  await rows.first().waitFor();
  return rows;
}

describe('the real Claude Code in the console, with the wizard’s default hooks installed', () => {
  it('an observed session: the reply from its transcript is a reply row, the session titled by its first prompt', async () => {
    const reply = `The observed reply ${randomUUID().slice(0, 8)} came from the transcript.`;
    const prompt = `Say hi using the shell, observed ${randomUUID().slice(0, 6)}`;
    const stub = await startAnthropicStub([{ shell: 'echo hi' }, { text: reply }]);
    const rig = await openHookedRig('claude-code', stub, cli, { permissions: { allow: ['Bash'] } });
    const result = await runVendor({ vendor: 'claude-code', prompt, stubUrl: stub.url, home: rig.home, cwd: rig.cwd });
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toContain(reply);
    // The stream first: the reply of the hooks' session, read from its transcript.
    const replied = await rig.c.waitEvent((e) => e.type === 'x.claude-code.message.replied' && (e.data as { text?: string } | undefined)?.text === reply, 'the reply on the AEP stream', 60_000);
    const session = String(replied.session);
    expect(String(replied.source)).not.toContain('/launched/');

    const { page, errors } = await openConsole(rig);
    await page.goto(`${rig.d.url}/?skipWizard=1#/sessions/${encodeURIComponent(session)}`);
    const rows = page.locator('[data-testid=timeline-row]');
    const replyRow = rows.filter({ hasText: reply });
    await replyRow.waitFor();
    expect(await replyRow.getAttribute('data-kind')).toBe('reply');
    expect(await replyRow.getAttribute('data-type')).toBe('x.claude-code.message.replied');
    expect(await page.getByTestId('session-heading').innerText()).toBe(prompt);
    await shootBothThemes(page, 'real-claude-observed-timeline');

    const listed = await sessionRows(page, session);
    expect(await listed.count()).toBe(1);
    expect(await listed.getByTestId('session-title').innerText()).toBe(prompt);
    await shootBothThemes(page, 'real-claude-observed-sessions');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('a launched session: one row in the console, and a follow-up from the composer reaches the model', async () => {
    const stub = await startAnthropicStub([{ shell: 'echo one-session' }, { text: 'First done.' }]);
    const rig = await openHookedRig('claude-code', stub, cli, { permissions: { allow: ['Bash'] } });
    const session = await launchWithPrompt(rig, 'claude-code', 'Run echo one-session.');
    const first = await rig.c.waitEvent((e) => e.session === session && TERMINAL.includes(String(e.type)), 'first run end', 150_000);
    expect(first, rig.c.types(session).join(',')).toMatchObject({ type: 'run.finished' });

    const { page, errors, frames } = await openConsole(rig);
    await page.goto(`${rig.d.url}/?skipWizard=1#/sessions/${encodeURIComponent(session)}`);
    const text = `Follow-up from the console ${randomUUID()}`;
    const box = page.getByTestId('launched-text');
    await expect.poll(() => box.isEnabled(), { timeout: 30_000 }).toBe(true);
    await box.fill(text);
    await page.getByTestId('launched-send').click();
    await stub.waitForRequest((q) => isAnthropicAgentRequest(q) && requestContains(q, text));
    // The prompt the console sent starts one run of the same session, which ends.
    const second = await rig.c.waitEvent((e) => e.session === session && e.type === 'run.started' && e.run !== first.run, 'second run', 60_000);
    await rig.c.waitEvent((e) => e.run === second.run && TERMINAL.includes(String(e.type)), 'second run end', 150_000);
    const rows = page.locator('[data-testid=timeline-row]');
    await rows.filter({ hasText: text }).first().waitFor();
    // The bridge's command list and its internal agents' empty stops are on the stream, and plumbing on screen.
    expect(rig.c.types(session)).toEqual(expect.arrayContaining(['x.acp.available.commands.update', 'delegation.subagent.stopped']));
    // The bridge announces the call with no input and sends the command after: the row reads the command.
    expect(await rows.filter({ has: page.locator('.tl-title', { hasText: '$ echo one-session' }) }).count()).toBe(1);
    const shown = await rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-type')));
    expect(shown.filter((t) => t === 'x.acp.available.commands.update' || t === 'delegation.subagent.stopped' || /usage\.updated$/.test(String(t))), shown.join(',')).toEqual([]);
    await shootBothThemes(page, 'real-claude-launched-timeline');

    const listed = await sessionRows(page, session);
    expect(await listed.count()).toBe(1);
    expect(await page.locator('[data-testid=session-row]').count()).toBe(1);
    await shootBothThemes(page, 'real-claude-launched-sessions');
    expect(await page.locator('body').innerText()).not.toMatch(/ambiguous/i);
    expect(frames.filter((f) => /ambiguous/i.test(f))).toEqual([]);
    expect(errors).toEqual([]);
    await expectOneSession(rig, session);
  });
});
