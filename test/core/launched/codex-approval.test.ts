/**
 * Codex app-server approval requests through the real host: `item/commandExecution/requestApproval`
 * and `item/fileChange/requestApproval` become answerable `attention.requested` permission cards
 * whose option ids are the app-server's decisions verbatim; `control.attention.respond` answers the
 * request on the wire with that decision; a timeout or a cancelled turn answers `cancel` (deny and
 * interrupt) and the run ends cancelled. The agent is a small app-server (mock-codex-app-server.mjs).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { validateStream } from '../../../main/core/aep/stream-checker';
import { codexApprovalAnswer, codexApprovalAsk } from '../../../main/core/vendors/codex/app-server-translate';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from './agents-harness';

type Json = Record<string, unknown>;
const MOCK_CODEX = fileURLToPath(new URL('./mock-codex-app-server.mjs', import.meta.url));
const HOLD_MS = 45_000;
const cwd = mkdtempSync(join(tmpdir(), 'aep-codex-approval-'));

/** A scheduler whose permission-hold timers fire when the test says so (other timers never fire). */
function holdScheduler() {
  const timers: { ms: number; fire: () => void; live: boolean }[] = [];
  return {
    schedule: (ms: number, fire: () => void) => {
      const t = { ms, fire, live: true };
      timers.push(t);
      return () => void (t.live = false);
    },
    expireHolds(): number {
      const due = timers.filter((t) => t.live && t.ms === HOLD_MS);
      for (const t of due) {
        t.live = false;
        t.fire();
      }
      return due.length;
    },
  };
}

let d: AgentsDaemon | null = null;
let c: Consumer | null = null;
afterEach(async () => {
  c?.close();
  c = null;
  if (d) {
    await d.close();
    removeAgentsDir(d.dataDir);
  }
  d = null;
});

const terminal = (session: string) => (e: Json) => e.session === session && ['run.finished', 'run.failed', 'run.cancelled'].includes(String(e.type));

/** Starts the daemon, points Codex at the mock app-server, launches with a first prompt and waits for the card. */
async function launchToCard(approval: 'commandExecution' | 'fileChange', scheduler?: ReturnType<typeof holdScheduler>) {
  d = await startAgentsDaemon(scheduler ? { schedule: scheduler.schedule } : {});
  d.daemon.context.settings.set({ 'permissions.holdMs': HOLD_MS });
  c = await Consumer.connect(d.url, d.daemon.tokens.operator);
  const record = join(cwd, `wire-${approval}-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
  const set = d.daemon.context.settings.set({ 'agents.codex.command': [process.execPath, MOCK_CODEX, `--record=${record}`, `--approval=${approval}`] } as never);
  if (!set.ok) throw new Error(set.error.message);
  const res = await d.api<Json>('POST', '/api/launch', { agent: 'codex', cwd, prompt: 'clean up' });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const session = String(res.json.session);
  const card = await c.waitEvent((e) => e.session === session && e.type === 'attention.requested', 'the permission card');
  /** What the host wrote back to the app-server: the responses (lines without a method). */
  const answers = (): Json[] =>
    readFileSync(record, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Json)
      .filter((m) => m.method === undefined);
  return { session, card, answers, d, c };
}

describe('Codex app-server approvals as attention cards', () => {
  it('a command approval is a permission card with the decisions verbatim; the chosen one goes back on the wire', async () => {
    const { session, card, answers, c } = await launchToCard('commandExecution');
    const tool = c.of(session).find((e) => e.type === 'tool.requested') as Json;
    const run = c.of(session).find((e) => e.type === 'run.started') as Json;
    expect(card).toMatchObject({ subject: tool.subject, run: run.run });
    // The card carries the moment the hold gives up (HOLD_MS after it was raised).
    const left = Date.parse(String((card.data as Json).expires_at)) - Date.parse(String(card.time));
    expect(left).toBeLessThanOrEqual(HOLD_MS);
    expect(left).toBeGreaterThan(HOLD_MS - 1_000);
    expect(card.data).toMatchObject({
      kind: 'permission',
      respond_via: ['control'],
      options_count: 3,
      options: [
        { id: 'accept', label: 'Allow', kind: 'allow_once' },
        { id: 'acceptForSession', label: 'Allow for this session', kind: 'allow_always' },
        { id: 'decline', label: 'Deny', kind: 'reject_once' },
      ],
    });
    expect(answers()).toEqual([]);
    const bad = c.command('control.attention.respond', session, { answer: { option: 'approved' } }, { subject: card.id });
    expect(await c.ack(bad)).toMatchObject({ type: 'control.rejected', data: { reason: 'invalid' } });
    const id = c.command('control.attention.respond', session, { answer: { option: 'acceptForSession' } }, { subject: card.id });
    expect(await c.ack(id)).toMatchObject({ type: 'control.accepted' });
    expect(await c.waitEvent((e) => e.type === 'attention.answered' && e.cause === id, 'answered')).toMatchObject({ subject: card.id, data: { answer: { option: 'acceptForSession' } } });
    expect(await c.waitEvent((e) => e.type === 'attention.resolved' && e.subject === card.id, 'resolved')).toMatchObject({ data: { resolution: 'answered' } });
    expect(await c.waitEvent(terminal(session), 'run end')).toMatchObject({ type: 'run.finished' });
    expect(answers()).toEqual([expect.objectContaining({ id: 1, result: { decision: 'acceptForSession' } })]);
    expect(c.types(session)).toContain('tool.completed');
    const checked = validateStream(c.of(session) as never);
    expect(checked.ok, JSON.stringify(checked) + c.of(session).map((e) => `\n${String(e.type)} seq=${String(e.seq)}`).join('')).toBe(true);
  });

  it('a file-change approval answered Deny declines the change on the wire and the turn goes on', async () => {
    const { session, card, answers, c } = await launchToCard('fileChange');
    expect(card.data).toMatchObject({ kind: 'permission', options: [{ id: 'accept' }, { id: 'acceptForSession' }, { id: 'decline' }] });
    const id = c.command('control.attention.respond', session, { answer: { option: 'decline' } }, { subject: card.id });
    expect(await c.ack(id)).toMatchObject({ type: 'control.accepted' });
    expect(await c.waitEvent(terminal(session), 'run end')).toMatchObject({ type: 'run.finished' });
    expect(answers()).toEqual([expect.objectContaining({ id: 1, result: { decision: 'decline' } })]);
    expect(c.types(session)).toContain('tool.failed');
  });

  it('an approval nobody answers times out honestly: attention.timeout, `cancel` on the wire, the run cancelled', async () => {
    const scheduler = holdScheduler();
    const { session, card, answers, c } = await launchToCard('commandExecution', scheduler);
    expect(scheduler.expireHolds()).toBe(1);
    expect(await c.waitEvent((e) => e.type === 'attention.timeout' && e.subject === card.id, 'timeout')).toMatchObject({ data: { after_ms: HOLD_MS } });
    expect(await c.waitEvent(terminal(session), 'run end')).toMatchObject({ type: 'run.cancelled' });
    expect(answers()).toEqual([expect.objectContaining({ id: 1, result: { decision: 'cancel' } })]);
    // The card is settled: a late answer is refused, and nothing more goes to the app-server.
    const late = c.command('control.attention.respond', session, { answer: { option: 'accept' } }, { subject: card.id });
    expect(await c.ack(late)).toMatchObject({ type: 'control.rejected', data: { reason: 'invalid' } });
    expect(answers()).toHaveLength(1);
    expect(validateStream(c.of(session) as never)).toMatchObject({ ok: true });
  });

  it('control.cancel while the card is open dismisses it, answers `cancel` on the wire, and cancels the run with the command as cause', async () => {
    const { session, card, answers, c } = await launchToCard('commandExecution');
    const id = c.command('control.cancel', session, { scope: 'run' });
    expect(await c.ack(id)).toMatchObject({ type: 'control.accepted' });
    expect(await c.waitEvent((e) => e.type === 'attention.resolved' && e.subject === card.id, 'dismissed')).toMatchObject({ data: { resolution: 'dismissed' } });
    expect(await c.waitEvent(terminal(session), 'run end')).toMatchObject({ type: 'run.cancelled', cause: id });
    expect(answers()).toEqual([expect.objectContaining({ id: 1, result: { decision: 'cancel' } })]);
    expect(validateStream(c.of(session) as never)).toMatchObject({ ok: true });
  });
});

describe('codexApprovalAsk', () => {
  it('maps the two approval requests, raw params verbatim, and nothing else', () => {
    const params = { threadId: 't', turnId: 'u', itemId: 'call_9', startedAtMs: 1, reason: 'write notes.txt', grantRoot: null };
    expect(codexApprovalAsk('item/fileChange/requestApproval', params)).toEqual({
      toolCall: { toolCallId: 'call_9', title: 'write notes.txt', kind: 'edit', rawInput: params },
      options: [
        { optionId: 'accept', name: 'Allow', kind: 'allow_once' },
        { optionId: 'acceptForSession', name: 'Allow for this session', kind: 'allow_always' },
        { optionId: 'decline', name: 'Deny', kind: 'reject_once' },
      ],
    });
    // Answered with a permission profile, not a decision: not an approval the card can answer.
    expect(codexApprovalAsk('item/permissions/requestApproval', params)).toBeNull();
    expect(codexApprovalAsk('item/tool/requestUserInput', params)).toBeNull();
    expect(codexApprovalAnswer({ outcome: 'selected', optionId: 'decline' })).toEqual({ decision: 'decline' });
    expect(codexApprovalAnswer({ outcome: 'cancelled' })).toEqual({ decision: 'cancel' });
  });
});
