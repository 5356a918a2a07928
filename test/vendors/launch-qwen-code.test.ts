/** Qwen Code launched as `qwen --acp` (found on PATH by the catalogue) against the chat-completions stub: launch and a turn. */
import { describe, expect, it } from 'vitest';
import { startChatStub } from '../support/model-stubs/openai-chat-stub';
import { closeRigsAfterEach, launchWithPrompt, openTestRig, TERMINAL } from './launch-rig';

closeRigsAfterEach();

describe('Qwen Code through qwen --acp', () => {
  it('launches a session and runs a turn with a tool call to run.finished; a second prompt queues, never concurrent', async () => {
    const rig = await openTestRig('qwen-code', await startChatStub([{ shell: 'echo qwen-launched' }, { text: 'All done.' }]));
    const session = await launchWithPrompt(rig, 'qwen-code', 'Run echo qwen-launched.');
    const started = await rig.c.waitEvent((e) => e.session === session && e.type === 'run.started', 'run');
    const second = rig.c.command('x.qwen-code.control.send_input', session, { text: 'And again.' }, { capture: 'redacted' });
    expect(await rig.c.ack(second)).toMatchObject({ type: 'control.accepted' });
    const first = await rig.c.waitEvent((e) => e.run === started.run && TERMINAL.includes(String(e.type)), 'first run end', 150_000);
    expect(first, rig.c.types(session).join(',')).toMatchObject({ type: 'run.finished', data: { stop_reason: 'end_turn' } });
    expect(rig.c.types(session)).toContain('tool.completed');
    const next = await rig.c.waitEvent((e) => e.cause === second && e.type === 'run.started', 'second run', 60_000);
    // The second prompt was queued while the first ran: it started only after the first finished.
    expect(rig.c.events.indexOf(next)).toBeGreaterThan(rig.c.events.indexOf(first));
    expect(rig.c.events.some((e) => e.cause === second && e.type === 'x.qwen-code.input.queued')).toBe(true);
    await rig.c.waitEvent((e) => e.run === next.run && e.type === 'run.finished', 'second run end', 150_000);
  });
});
