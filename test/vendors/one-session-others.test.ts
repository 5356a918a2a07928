/**
 * Qwen Code (`qwen --acp`) and Codex (app-server) launched on a machine with the companion's hooks
 * installed for them (user scope, `--instruct`, by the real installer; for Codex also trusted, as
 * its own review records it): each session is one session, and a follow-up prompt is carried out
 * and reaches the model stub.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isChatAgentRequest, startChatStub } from '../support/model-stubs/openai-chat-stub';
import { isResponsesAgentRequest, startResponsesStub } from '../support/model-stubs/openai-responses-stub';
import { requestContains, type RecordedRequest, type StubServer } from '../support/model-stubs/stub-server';
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

/** Codex's app-server runs the user's hooks once the user trusted them: the rig records that trust (hooked-launch-rig.ts). */
const CASES: readonly { vendor: 'qwen-code' | 'codex'; stub: () => Promise<StubServer>; isAgent: (q: RecordedRequest) => boolean }[] = [
  { vendor: 'qwen-code', stub: () => startChatStub([{ shell: 'echo one-session' }, { text: 'First done.' }]), isAgent: isChatAgentRequest },
  { vendor: 'codex', stub: () => startResponsesStub([{ shell: 'echo one-session' }, { text: 'First done.' }]), isAgent: isResponsesAgentRequest },
];

describe('launched with the user-scope hooks installed', () => {
  for (const c of CASES) {
    it(`${c.vendor}: one session; a follow-up prompt is carried out and reaches the model`, async () => {
      const stub = await c.stub();
      const rig = await openHookedRig(c.vendor, stub, cli);
      const session = await launchWithPrompt(rig, c.vendor, 'Run echo one-session.');
      const first = await rig.c.waitEvent((e) => e.session === session && TERMINAL.includes(String(e.type)), 'first run end', 150_000);
      expect(first, rig.c.types(session).join(',')).toMatchObject({ type: 'run.finished' });
      const text = `Follow-up ${randomUUID()}`;
      const id = rig.c.command(`x.${c.vendor}.control.send_input`, session, { text, delivery: 'queue' }, { capture: 'redacted' });
      expect(await rig.c.ack(id), JSON.stringify(rig.c.frames.slice(-3))).toMatchObject({ type: 'control.accepted' });
      await stub.waitForRequest((q) => c.isAgent(q) && requestContains(q, text));
      const second = await rig.c.waitEvent((e) => e.cause === id && e.type === 'run.started', 'second run');
      await rig.c.waitEvent((e) => e.run === second.run && TERMINAL.includes(String(e.type)), 'second run end', 150_000);
      await expectOneSession(rig, session);
    });
  }
});
