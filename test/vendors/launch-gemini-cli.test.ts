/** Gemini CLI launched as `gemini --acp` (found on PATH, API key from the environment → ACP authenticate) against the Gemini stub: launch and a turn. */
import { describe, expect, it } from 'vitest';
import { startGeminiStub } from '../support/model-stubs/gemini-stub';
import { closeRigsAfterEach, openTestRig, TERMINAL } from './launch-rig';

type Json = Record<string, unknown>;
closeRigsAfterEach();

describe('Gemini CLI through gemini --acp', () => {
  it('launches a session and runs a turn (its tool permission answered from the inbox) to run.finished', async () => {
    const rig = await openTestRig('gemini-cli', await startGeminiStub([{ shell: 'echo gemini-launched' }, { text: 'All done.' }]));
    const res = await rig.d.api<Json>('POST', '/api/launch', { agent: 'gemini-cli', cwd: rig.cwd, prompt: 'Run echo gemini-launched.' });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.capabilities).toMatchObject({ agentInfo: { name: 'gemini-cli', version: '0.61.0' } });
    const session = String(res.json.session);
    const isEnd = (e: Json) => e.session === session && TERMINAL.includes(String(e.type));
    const card = await rig.c.waitEvent((e) => (e.session === session && e.type === 'attention.requested') || isEnd(e), 'card or end', 150_000);
    if (card.type === 'attention.requested') {
      const options = (card.data as { options: { id: string; kind: string }[] }).options;
      const allow = options.find((o) => o.kind === 'allow_once') ?? options[0];
      const id = rig.c.command('control.attention.respond', session, { answer: { option: allow.id } }, { subject: card.id });
      expect(await rig.c.ack(id)).toMatchObject({ type: 'control.accepted' });
    }
    const end = await rig.c.waitEvent(isEnd, 'run end', 150_000);
    expect(end, rig.c.types(session).join(',')).toMatchObject({ type: 'run.finished', data: { stop_reason: 'end_turn' } });
    expect(rig.c.types(session)).toEqual(expect.arrayContaining(['tool.requested', 'tool.completed']));
  });
});
