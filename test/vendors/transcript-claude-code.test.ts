/**
 * An observed Claude Code session's reply comes from its transcript (issue 41): the daemon runs for
 * a user whose HOME is a temp directory, `aep-companion install --vendor claude-code` writes the
 * default user-scope hooks there, and the real CLI runs against the Anthropic stub in that HOME.
 * Its hooks name the transcript (`transcript_path`, under ~/.claude/projects); the reply text the
 * stub scripted ("All done.") reaches the AEP stream as `x.claude-code.message.replied` of the same
 * session, with the model and token usage. With `features.transcripts` off, no reply is read.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AepSocket, type AepEvent } from '../support/aep-socket';
import { buildCompanionCli, startCompanion, type Companion, type CompanionCli } from '../support/companion';
import { startAnthropicStub } from '../support/model-stubs/anthropic-stub';
import { describeRun, makeTempHome, removeTempDir, runVendor } from '../support/run-vendor';
import { ensureVendorCli } from '../support/vendor-clis';

const REPLY = `All done ${randomUUID().slice(0, 8)}.`;

describe('an observed Claude Code session whose reply comes from its transcript', () => {
  let cli: CompanionCli;
  let home: string;
  let dataDir: string;
  let companion: Companion;
  let socket: AepSocket;

  beforeAll(async () => {
    await ensureVendorCli('claude-code');
    cli = await buildCompanionCli();
    home = await makeTempHome('aep-transcript-cc-');
    dataDir = await mkdtemp(join(tmpdir(), 'aep-transcript-data-'));
    companion = await startCompanion(cli, dataDir, { HOME: home });
    socket = await AepSocket.connect(companion.url, companion.tokens.operator);
    const installed = await companion.runCli(['install', '--vendor', 'claude-code', '--scope', 'user'], { env: { HOME: home } });
    expect(installed.code, `${installed.stdout}\n${installed.stderr}`).toBe(0);
  }, 180_000);

  afterAll(async () => {
    socket?.close();
    await companion?.stop();
    await cli?.dispose();
    if (home) await removeTempDir(home);
    if (dataDir) await removeTempDir(dataDir);
  });

  async function runSession(): Promise<{ session: string; fromIndex: number; transcript: string }> {
    const stub = await startAnthropicStub([{ shell: 'echo hi' }, { text: REPLY }]);
    try {
      const fromIndex = socket.events.length;
      const result = await runVendor({ vendor: 'claude-code', prompt: 'Say hi using the shell.', stubUrl: stub.url, home, env: {} });
      expect(result.code, describeRun(result)).toBe(0);
      expect(result.stdout).toContain(REPLY);
      const finished = await socket.waitForEvent((e) => e.type === 'run.finished' && typeof e.session === 'string', 'run.finished (Stop hook)', { fromIndex, timeoutMs: 30_000 });
      const session = finished.session as string;
      // Claude Code keeps a session's transcript at ~/.claude/projects/<the project folder, dashed>/<session>.jsonl.
      const transcript = join(home, '.claude', 'projects', join(home, 'work').replace(/[^A-Za-z0-9]/g, '-'), `${session}.jsonl`);
      return { session, fromIndex, transcript };
    } finally {
      await stub.close();
    }
  }

  it("puts the agent's reply text from the transcript on the AEP stream, in the session the hooks emit", async () => {
    const { session, fromIndex } = await runSession();
    const replied = await socket.waitForEvent(
      (e) => e.session === session && e.type === 'x.claude-code.message.replied' && (e.data as { text?: string } | undefined)?.text === REPLY,
      'x.claude-code.message.replied carrying the reply text',
      { fromIndex, timeoutMs: 30_000 },
    );
    const started = socket.events.slice(fromIndex).find((e: AepEvent) => e.session === session && e.type === 'session.started');
    // One emitter, one source: the transcript's facts are events of the hooks' session.
    expect(replied.source).toBe(started?.source);
    expect(replied.capture).toBe('redacted');
    const data = replied.data as Record<string, unknown>;
    expect(data['gen_ai.request.model']).toEqual(expect.any(String));
    expect(data['usage']).toMatchObject({ 'gen_ai.usage.output_tokens': expect.any(Number) });
    // Stored as admitted: the console's history holds the reply and the response usage of the Bash call.
    const stored = await companion.api<{ events: AepEvent[] }>('GET', `/api/sessions/history?session=${encodeURIComponent(session)}`);
    const types = stored.events.map((e) => e.type);
    expect(types).toContain('x.claude-code.message.replied');
    expect(types).toContain('x.claude-code.usage.reported');
    expect(JSON.stringify(stored.events)).toContain(REPLY);
  }, 240_000);

  it('reads no transcript while features.transcripts is off, and reads it on the next hook once on', async () => {
    await companion.api('PATCH', '/api/settings', { 'features.transcripts': false });
    const { session, fromIndex, transcript } = await runSession();
    // Every hook of the run was handled (its last, SessionEnd, is on the stream): none scheduled a read.
    await socket.waitForEvent((e) => e.session === session && e.type === 'session.ended', 'session.ended (SessionEnd hook)', { fromIndex, timeoutMs: 30_000 });
    const isReply = (e: AepEvent) => e.session === session && e.type === 'x.claude-code.message.replied';
    expect(socket.events.slice(fromIndex).filter(isReply)).toEqual([]);
    await companion.api('PATCH', '/api/settings', { 'features.transcripts': true });
    // A later hook of the same session naming its transcript: now it is read, from the start.
    const res = await fetch(companion.hookUrl('claude-code'), {
      method: 'POST',
      headers: { authorization: `Bearer ${companion.tokens.hook}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'Notification', session_id: session, transcript_path: transcript, cwd: join(home, 'work'), message: 'idle', notification_type: 'idle_prompt' }),
    });
    expect(res.status).toBe(200);
    const replied = await socket.waitForEvent(isReply, 'the reply, read once the setting is on', { fromIndex, timeoutMs: 30_000 });
    expect((replied.data as { text?: string }).text).toBe(REPLY);
  }, 240_000);
});
