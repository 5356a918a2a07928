/**
 * Every recorded wire file in research/acp-wire replayed agent-side (test/support/replay-wire-agent.mjs)
 * through the real host: the session id is the agent's own, each prompt the host sends is one run
 * settled as the recording settled it, tool calls pair, the stream validates, and the host never
 * sends a prompt while another is unanswered (the preempting agents lose work on a concurrent one).
 * ACP recordings of Codex bridges run under the `qwen-code` id (the id only names the emitter).
 */
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateStream } from '../../../main/core/aep/stream-checker';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from './agents-harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const WIRE_DIR = fileURLToPath(new URL('../../../../shared/research/acp-wire/', import.meta.url));
const REPLAY = fileURLToPath(new URL('../../support/replay-wire-agent.mjs', import.meta.url));
const files = readdirSync(WIRE_DIR).filter((f) => f.endsWith('.json')).sort();

const agentFor = (name: string): string =>
  name.startsWith('codex-app-server') ? 'codex' : name.includes('claude') ? 'claude-code' : name.startsWith('gemini') ? 'gemini-cli' : 'qwen-code';

/** What the recording says the host should see. */
function expectations(wire: Json[]) {
  const fromClient = wire.filter((w) => w.dir === 'client->agent').map((w) => w.msg);
  const fromAgent = wire.filter((w) => w.dir === 'agent->client').map((w) => w.msg);
  const answer = (id: unknown) => fromAgent.find((m) => m.id === id && m.method === undefined);
  const codex = fromClient.some((m) => m.method === 'thread/start');
  if (codex) {
    const completed = fromAgent.filter((m) => m.method === 'turn/completed');
    const starts = fromClient.filter((m) => m.method === 'turn/start').slice(0, completed.length);
    return {
      session: answer(fromClient.find((m) => m.method === 'thread/start').id)?.result?.thread?.id as string,
      prompts: starts.map((m) => m.params.input[0].text as string),
      terminals: completed.map((m) => ({ completed: 'run.finished', interrupted: 'run.cancelled' })[m.params.turn.status as string] ?? 'run.failed'),
      tools: fromAgent.filter((m) => m.method === 'item/started' && m.params.item.type === 'commandExecution').length,
      usage: fromAgent.filter((m) => m.method === 'thread/tokenUsage/updated').length,
      openFails: false,
    };
  }
  const created = answer(fromClient.find((m) => m.method === 'session/new')?.id);
  const prompts = fromClient.filter((m) => m.method === 'session/prompt' && answer(m.id) !== undefined);
  return {
    session: created?.result?.sessionId as string,
    prompts: prompts.map((m) => m.params.prompt[0].text as string),
    terminals: prompts.map((m) => {
      const a = answer(m.id);
      if (a.error) return 'run.failed';
      const stop = a.result.stopReason;
      return stop === 'cancelled' ? 'run.cancelled' : stop === 'refusal' ? 'run.failed' : 'run.finished';
    }),
    tools: fromAgent.filter((m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'tool_call').length,
    usage: fromAgent.filter((m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'usage_update').length,
    openFails: created === undefined || created.error !== undefined,
  };
}

let d: AgentsDaemon;
let c: Consumer;
const cwd = mkdtempSync(join(tmpdir(), 'aep-wire-cwd-'));
beforeAll(async () => {
  d = await startAgentsDaemon();
  d.daemon.context.settings.set({ 'features.steering': true });
  c = await Consumer.connect(d.url, d.daemon.tokens.operator);
});
afterAll(async () => {
  c.close();
  await d.close();
  removeAgentsDir(d.dataDir);
});

describe('recorded wire files replayed agent-side', () => {
  it('has the recordings', () => expect(files.length).toBeGreaterThanOrEqual(20));
  for (const file of files) {
    it(file.replace(/\.json$/, ''), async () => {
      const wire = JSON.parse(readFileSync(join(WIRE_DIR, file), 'utf8')).wire as Json[];
      const want = expectations(wire);
      const agent = agentFor(file);
      // The Gemini recording authenticated with an API key from the environment: so does the host.
      if (agent === 'gemini-cli') process.env.GEMINI_API_KEY = 'stub-key';
      else delete process.env.GEMINI_API_KEY;
      const report = join(cwd, `${file}.report.jsonl`);
      const set = d.daemon.context.settings.set({ [`agents.${agent}.command`]: [process.execPath, REPLAY, join(WIRE_DIR, file), `--report=${report}`] } as never);
      expect(set.ok).toBe(true);
      const res = await d.api<Json>('POST', '/api/launch', { agent, cwd, prompt: want.prompts[0] });
      if (want.openFails) {
        expect(res.status).toBe(502);
        expect(String(res.json.detail)).toMatch(/did not start a session/);
        return;
      }
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      const session = res.json.session as string;
      expect(session).toBe(want.session);
      for (const text of want.prompts.slice(1)) {
        const id = c.command(`x.${agent}.control.send_input`, session, { text }, { capture: 'redacted' });
        expect(await c.ack(id)).toMatchObject({ type: 'control.accepted' });
      }
      const isTerminal = (e: Json) => e.session === session && ['run.finished', 'run.failed', 'run.cancelled'].includes(e.type);
      await c.waitEvent(() => c.events.filter(isTerminal).length >= want.terminals.length, `${want.terminals.length} run ends`);
      const events = c.of(session) as Json[];
      const runs = events.filter((e) => e.type === 'run.started').map((e) => e.run);
      expect(new Set(runs).size).toBe(want.prompts.length);
      expect(events.filter(isTerminal).map((e) => e.type)).toEqual(want.terminals);
      expect(events.filter(isTerminal).map((e) => e.run)).toEqual(runs);
      expect(events.filter((e) => e.type === 'tool.requested')).toHaveLength(want.tools);
      // Every usage report arrives, including ones the ACP SDK's schema would refuse (`used: null`).
      expect(events.filter((e) => e.type === 'x.acp.usage.updated')).toHaveLength(want.usage);
      for (const done of events.filter((e) => e.type === 'tool.completed' || e.type === 'tool.failed'))
        expect(events.find((e) => e.id === done.cause)?.type).toBe('tool.requested');
      const finished = events.filter((e) => e.type === 'run.finished');
      for (const f of finished) expect(f.data.stop_reason).toBe('end_turn');
      const checked = validateStream(events as never);
      expect(checked.ok, checked.ok ? '' : JSON.stringify(checked)).toBe(true);
      // Never a prompt while another was unanswered.
      const lines = existsSync(report) ? readFileSync(report, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json) : [];
      const sent = lines.filter((l) => l.method !== 'authenticate');
      const recordedAuth = wire.find((w) => w.msg.method === 'authenticate')?.msg.params;
      expect(lines.find((l) => l.method === 'authenticate')?.params).toEqual(recordedAuth);
      expect(sent).toHaveLength(want.prompts.length);
      expect(sent.some((s) => s.overlap)).toBe(false);
      await d.api('POST', '/api/launched/end', { session });
    });
  }
});
