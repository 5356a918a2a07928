/** `aep-companion prompt --delivery now|queue|stop --wait`: the settled outcome word and its exit code. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WAIT_EXIT } from '../../../../common/agent-inputs';
import { run as prompt } from '../../../../main/cli/commands/prompt';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from '../agents-harness';

let d: AgentsDaemon | null = null;
let c: Consumer | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  c?.close();
  c = null;
  if (d) {
    await d.close();
    removeAgentsDir(d.dataDir);
  }
  d = null;
});
const cwd = mkdtempSync(join(tmpdir(), 'aep-steer-cli-'));

async function capture(
  fn: () => Promise<number>,
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (chunk: string | Uint8Array) => ((out += String(chunk)), true),
  );
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (chunk: string | Uint8Array) => ((err += String(chunk)), true),
  );
  try {
    return { code: await fn(), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

async function launched(agent: string, args: string[]): Promise<string> {
  d = await startAgentsDaemon();
  d.daemon.context.settings.set({ 'features.steering': true, 'features.midTurnSteering': true });
  c = await Consumer.connect(d.url, d.daemon.tokens.operator);
  d.mock(agent, ...args);
  const res = await d.api<{ session: string }>('POST', '/api/launch', {
    agent,
    cwd,
    prompt: 'first',
  });
  expect(res.status).toBe(200);
  await c.waitEvent((e) => e.session === res.json.session && e.type === 'tool.requested', 'tool');
  return res.json.session;
}

const lastLine = (out: string) => out.trim().split('\n').at(-1);

describe('prompt --delivery … --wait', () => {
  it('now on a steer-capable generating session: steered, exit 0', async () => {
    const session = await launched('claude-code', ['--steer=fold', '--turn-delay=2500']);
    const r = await capture(() =>
      prompt([session, 'steer me', '--delivery', 'now', '--wait', '--data-dir', d!.dataDir]),
    );
    expect({ code: r.code, word: lastLine(r.out) }, r.err).toEqual({
      code: WAIT_EXIT.steered,
      word: 'steered',
    });
  });

  it('now on a queue-only agent: says why it queued, then queued (sent as the next prompt), exit 12', async () => {
    const session = await launched('qwen-code', ['--steer=preempt', '--turn-delay=400']);
    const r = await capture(() =>
      prompt([session, 'later', '--delivery', 'now', '--wait', '--data-dir', d!.dataDir]),
    );
    expect(r.err).toMatch(/queued: the agent advertised no mid-turn input/);
    expect({ code: r.code, word: lastLine(r.out) }).toEqual({ code: 12, word: 'queued' });
  });

  it('now when the agent runs it as its own turn: deferred, exit 10', async () => {
    const session = await launched('claude-code', ['--steer=defer', '--turn-delay=400']);
    const r = await capture(() =>
      prompt([session, 'next', '--delivery', 'now', '--wait', '--data-dir', d!.dataDir]),
    );
    expect({ code: r.code, word: lastLine(r.out) }).toEqual({ code: 10, word: 'deferred' });
  });

  it('refuses an unknown delivery with a usage error', async () => {
    d = await startAgentsDaemon();
    const r = await capture(() =>
      prompt(['s', 'x', '--delivery', 'sideways', '--data-dir', d!.dataDir]),
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--delivery must be one of now, queue, stop/);
  });
});
