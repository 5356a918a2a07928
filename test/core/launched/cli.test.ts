/** `aep-companion launch`, `prompt` and `cancel` against a real daemon (data dir → daemon.json and the operator token). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as launch } from '../../../main/cli/commands/launch';
import { run as prompt } from '../../../main/cli/commands/prompt';
import { run as cancel } from '../../../main/cli/commands/cancel';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from './agents-harness';

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
const cwd = mkdtempSync(join(tmpdir(), 'aep-cli-cwd-'));

/** Runs a command, capturing what it printed. */
async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  try {
    return { code: await fn(), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('launch / prompt / cancel', () => {
  it('launch --json prints session, agent and capabilities; prompt --wait waits for the turn; cancel stops one', async () => {
    d = await startAgentsDaemon();
    d.daemon.context.settings.set({ 'features.steering': true });
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    d.mock('gemini-cli', '--turn-delay=1500');
    const launched = await capture(() => launch(['gemini-cli', '--cwd', cwd, '--prompt', 'hello', '--json', '--data-dir', d!.dataDir]));
    expect(launched.code, launched.err).toBe(0);
    const body = JSON.parse(launched.out) as { session: string; agent: string; capabilities: Record<string, unknown> };
    expect(body).toMatchObject({ agent: 'gemini-cli', capabilities: { agentInfo: { name: 'mock-acp-agent' } } });
    await c.waitEvent((e) => e.session === body.session && e.type === 'run.started', 'first run');
    const waited = await capture(() => prompt([body.session, 'second', '--wait', '--data-dir', d!.dataDir]));
    // --wait prints the settled outcome as one word on the last line (12: sent as the next prompt).
    expect(waited.code, waited.err).toBe(12);
    expect(waited.out).toMatch(/run.finished \(end_turn\)\nqueued\n$/);
    expect(waited.err).toMatch(/queued \(position 1\)/);
    const idle = await capture(() => cancel([body.session, '--data-dir', d!.dataDir]));
    expect(idle.code).toBe(3);
    expect(idle.err).toMatch(/no turn is running/);
    d.mock('gemini-cli', '--turn-delay=10000');
    const second = await capture(() => launch(['gemini-cli', '--cwd', cwd, '--prompt', 'long', '--data-dir', d!.dataDir]));
    const session = second.out.trim();
    await c.waitEvent((e) => e.session === session && e.type === 'tool.completed', 'tool');
    const cancelled = await capture(() => cancel([session, '--data-dir', d!.dataDir]));
    expect(cancelled.code, cancelled.err).toBe(0);
    expect(cancelled.out).toMatch(/run.cancelled/);
  });

  it('refuses usage errors, a missing directory, and prompts while steering is off', async () => {
    d = await startAgentsDaemon();
    expect((await capture(() => launch(['gemini-cli', '--data-dir', d!.dataDir]))).code).toBe(2);
    expect((await capture(() => launch(['gemini-cli', '--cwd', cwd, '--bogus', '--data-dir', d!.dataDir]))).code).toBe(2);
    const missing = await capture(() => launch(['gemini-cli', '--cwd', join(cwd, 'missing'), '--data-dir', d!.dataDir]));
    expect(missing.code).toBe(3);
    expect(missing.err).toMatch(/not an existing directory/);
    d.mock('gemini-cli');
    const ok = await capture(() => launch(['gemini-cli', '--cwd', cwd, '--data-dir', d!.dataDir]));
    const refused = await capture(() => prompt([ok.out.trim(), 'hi', '--data-dir', d!.dataDir]));
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/is steering on/);
  });
});
