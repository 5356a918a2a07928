/**
 * Codex and Qwen Code sessions seen through their default user-scope hooks: where a hook names the
 * session's transcript (Codex's rollout under ~/.codex/sessions, Qwen Code's chat record under
 * ~/.qwen/projects), the reply text the stub scripted reaches the AEP stream as
 * `x.{vendor}.message.replied` of the same session. The daemon runs for the user whose HOME is a
 * temp directory, as in transcript-claude-code.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AepSocket, type AepEvent } from '../support/aep-socket';
import { buildCompanionCli, startCompanion, type Companion, type CompanionCli } from '../support/companion';
import { startChatStub } from '../support/model-stubs/openai-chat-stub';
import { startResponsesStub } from '../support/model-stubs/openai-responses-stub';
import type { StubServer } from '../support/model-stubs/stub-server';
import type { Turn } from '../support/model-stubs/turns';
import { describeRun, makeTempHome, removeTempDir, runVendor } from '../support/run-vendor';
import { ensureVendorCli } from '../support/vendor-clis';

const CASES: ReadonlyArray<{ vendor: 'codex' | 'qwen-code'; stub: (turns: readonly Turn[]) => Promise<StubServer> }> = [
  { vendor: 'codex', stub: (turns) => startResponsesStub(turns) },
  { vendor: 'qwen-code', stub: (turns) => startChatStub(turns) },
];

describe.each(CASES)("an observed $vendor session's reply from its transcript", ({ vendor, stub: startStub }) => {
  let cli: CompanionCli;
  let home: string;
  let dataDir: string;
  let companion: Companion;
  let socket: AepSocket;

  beforeAll(async () => {
    await ensureVendorCli(vendor);
    cli = await buildCompanionCli();
    home = await makeTempHome(`aep-transcript-${vendor}-`);
    dataDir = await mkdtemp(join(tmpdir(), 'aep-transcript-data-'));
    companion = await startCompanion(cli, dataDir, { HOME: home });
    socket = await AepSocket.connect(companion.url, companion.tokens.operator);
    const userEnv = { HOME: home, CODEX_HOME: join(home, '.codex') };
    const installed = await companion.runCli(['install', '--vendor', vendor, '--scope', 'user'], { env: userEnv });
    expect(installed.code, `${installed.stdout}\n${installed.stderr}`).toBe(0);
  }, 180_000);

  afterAll(async () => {
    socket?.close();
    await companion?.stop();
    await cli?.dispose();
    if (home) await removeTempDir(home);
    if (dataDir) await removeTempDir(dataDir);
  });

  it('puts the reply text on the AEP stream, in the session the hooks emit', async () => {
    const reply = `Finished ${randomUUID().slice(0, 8)}.`;
    const stub = await startStub([{ shell: 'echo hi' }, { text: reply }]);
    try {
      const fromIndex = socket.events.length;
      const result = await runVendor({ vendor, prompt: 'Say hi using the shell.', stubUrl: stub.url, home, env: {} });
      expect(result.code, describeRun(result)).toBe(0);
      const finished = await socket.waitForEvent((e) => e.type === 'run.finished' && typeof e.session === 'string', 'run.finished (Stop hook)', { fromIndex, timeoutMs: 30_000 });
      const session = finished.session as string;
      const replied = await socket.waitForEvent(
        (e) => e.session === session && e.type === `x.${vendor}.message.replied` && (e.data as { text?: string } | undefined)?.text === reply,
        `x.${vendor}.message.replied carrying the reply text`,
        { fromIndex, timeoutMs: 30_000 },
      );
      expect(replied.source).toBe(finished.source);
      expect((replied.data as Record<string, unknown>)['gen_ai.request.model']).toEqual(expect.any(String));
      const refused = socket.events.slice(fromIndex).filter((e: AepEvent) => e.type === 'error.raised' && e.session === session);
      expect(refused).toEqual([]);
    } finally {
      await stub.close();
    }
  }, 240_000);
});
