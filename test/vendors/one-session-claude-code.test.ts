/**
 * Claude Code launched through the ACP bridge on a machine with the companion's hooks installed
 * (user scope, `--instruct`, by the real installer): the session is one session. One row, one
 * `session.started`, one tool event pair per call, one permission card answered once, no
 * "ambiguous" refusal, and a follow-up prompt is carried out and reaches the model.
 */
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicStub, isAnthropicAgentRequest } from '../support/model-stubs/anthropic-stub';
import { requestContains } from '../support/model-stubs/stub-server';
import type { CompanionCli } from '../support/companion';
import { buildCompanionCli, openHookedRig } from './hooked-launch-rig';
import { closeRigsAfterEach, launchWithPrompt, TERMINAL } from './launch-rig';
import { expectOneSession } from './one-session-checks';

closeRigsAfterEach();
let cli: CompanionCli;
beforeAll(async () => {
  cli = await buildCompanionCli();
});
afterAll(async () => {
  await cli?.dispose();
});

describe('Claude Code launched with the user-scope hooks installed', () => {
  it('is one session; a follow-up prompt is carried out and reaches the model', async () => {
    const stub = await startAnthropicStub([{ shell: 'echo one-session' }, { text: 'First done.' }]);
    const rig = await openHookedRig('claude-code', stub, cli, { permissions: { allow: ['Bash'] } });
    expect(readFileSync(join(rig.home, '.claude', 'settings.json'), 'utf8')).toContain('hook');
    const session = await launchWithPrompt(rig, 'claude-code', 'Run echo one-session.');
    const first = await rig.c.waitEvent((e) => e.session === session && TERMINAL.includes(String(e.type)), 'first run end', 150_000);
    expect(first, rig.c.types(session).join(',')).toMatchObject({ type: 'run.finished' });
    const text = `Follow-up ${randomUUID()}`;
    const id = rig.c.command('x.claude-code.control.send_input', session, { text, delivery: 'queue' }, { capture: 'redacted' });
    expect(await rig.c.ack(id), JSON.stringify(rig.c.frames.slice(-3))).toMatchObject({ type: 'control.accepted' });
    await stub.waitForRequest((q) => isAnthropicAgentRequest(q) && requestContains(q, text));
    const second = await rig.c.waitEvent((e) => e.cause === id && e.type === 'run.started', 'second run');
    await rig.c.waitEvent((e) => e.run === second.run && TERMINAL.includes(String(e.type)), 'second run end', 150_000);
    // The hook path's verb, as a console showing an observed session sends it: one route, the launch host's prompt.
    const note = `Instruct ${randomUUID()}`;
    const instruct = rig.c.command('x.claude-code.control.instruct', session, { text: note }, { capture: 'redacted' });
    expect(await rig.c.ack(instruct), JSON.stringify(rig.c.frames.slice(-3))).toMatchObject({ type: 'control.accepted' });
    await stub.waitForRequest((q) => isAnthropicAgentRequest(q) && requestContains(q, note));
    const third = await rig.c.waitEvent((e) => e.cause === instruct && e.type === 'run.started', 'third run');
    await rig.c.waitEvent((e) => e.run === third.run && TERMINAL.includes(String(e.type)), 'third run end', 150_000);
    expect(rig.c.of(session).filter((e) => e.cause === instruct && e.type === 'run.started')).toHaveLength(1);
    expect(rig.c.types(session).filter((t) => /^x\.claude-code\.instruction\./.test(t)), 'the hook path delivered nothing').toEqual([]);
    await expectOneSession(rig, session);
  });

  it('a permission request is one card, answered once, and the tool runs', async () => {
    const stub = await startAnthropicStub([{ shell: 'touch one-card-probe.txt' }, { text: 'All done.' }]);
    const rig = await openHookedRig('claude-code', stub, cli, { permissions: { defaultMode: 'default' } });
    const session = await launchWithPrompt(rig, 'claude-code', 'Create one-card-probe.txt.');
    const card = await rig.c.waitEvent((e) => e.session === session && e.type === 'attention.requested', 'permission card', 60_000);
    const options = (card.data as { options: { id: string; kind: string }[] }).options;
    const allow = options.find((o) => o.kind === 'allow_once') ?? options[0];
    const id = rig.c.command('control.attention.respond', session, { answer: { option: allow.id } }, { subject: card.id });
    expect(await rig.c.ack(id), JSON.stringify(rig.c.frames.slice(-3))).toMatchObject({ type: 'control.accepted' });
    const end = await rig.c.waitEvent((e) => e.session === session && TERMINAL.includes(String(e.type)), 'run end', 150_000);
    expect(end, rig.c.types(session).join(',')).toMatchObject({ type: 'run.finished' });
    expect(existsSync(join(rig.cwd, 'one-card-probe.txt'))).toBe(true);
    expect(rig.c.of(session).filter((e) => e.type === 'attention.requested'), rig.c.types(session).join(',')).toHaveLength(1);
    await expectOneSession(rig, session);
  });
});
