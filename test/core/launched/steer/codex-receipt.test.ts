/**
 * Codex app-server `turn/steer` seen-by-agent receipt: the recorded wire files replayed in lockstep
 * (codex-lockstep-agent.mjs, `turn/steer` and `turn/interrupt` answered as recorded) through a
 * real daemon. An accepted steer whose `userMessage` item then appears on the turn gets
 * `x.codex.input.received { input, turn, item }` (cause = the command), after its
 * `x.codex.input.settled { outcome: steered }`, and `receivedAt` on its `agent_inputs` row; a
 * steer whose turn was interrupted before the agent showed it gets none. The receipt reader is
 * also fed the recorded notifications directly.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentInputRecord } from '../../../../common/agent-inputs';
import { validateStream } from '../../../../main/core/aep/stream-checker';
import { SteerReceipts } from '../../../../main/core/launched/steer/receipts';
import type { SteeringDriver } from '../../../../main/core/launched/steer/steer-driver';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from '../agents-harness';
import { loadWire, WIRE_DIR } from './wire';

type Json = Record<string, unknown>;
const LOCKSTEP = fileURLToPath(new URL('./codex-lockstep-agent.mjs', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'aep-codex-receipt-'));
const TERMINAL = ['run.finished', 'run.failed', 'run.cancelled'];

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

/** What the recording says: the turn, the steer text it accepted and the item that carried it. */
function recorded(name: string): { turn: string; text: string; item: string | null } {
  const wire = loadWire(name).wire;
  const steers = wire.filter((l) => l.dir === 'client->agent' && l.msg['method'] === 'turn/steer');
  const answered = steers.find((s) =>
    wire.some((l) => l.dir === 'agent->client' && l.msg['id'] === s.msg['id'] && 'result' in l.msg),
  );
  const params = answered?.msg['params'] as { expectedTurnId: string; input: { text: string }[] };
  const text = params.input[0].text;
  const item = wire.find((l) => {
    const p = l.msg['params'] as
      | { turnId?: string; item?: { type?: string; content?: { text?: string }[] } }
      | undefined;
    return (
      l.msg['method'] === 'item/started' &&
      p?.turnId === params.expectedTurnId &&
      p.item?.type === 'userMessage' &&
      p.item.content?.[0]?.text === text
    );
  });
  const itemId = (item?.msg['params'] as { item?: { id?: string } } | undefined)?.item?.id ?? null;
  return { turn: params.expectedTurnId, text, item: itemId };
}

/** Launches the replayed Codex session and waits until the host knows the running turn's id. */
async function launch(name: string): Promise<string> {
  d = await startAgentsDaemon();
  c = await Consumer.connect(d.url, d.daemon.tokens.operator);
  d.daemon.context.settings.set({ 'features.steering': true, 'features.midTurnSteering': true });
  const set = d.daemon.context.settings.set({
    'agents.codex.command': [process.execPath, LOCKSTEP, join(WIRE_DIR, `${name}.json`)],
  } as never);
  expect(set.ok).toBe(true);
  const res = await d.api<Json>('POST', '/api/launch', { agent: 'codex', cwd, prompt: 'run the probe' });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const session = String(res.json.session);
  const driver = d.host.session(session)?.driver as SteeringDriver;
  for (let i = 0; !driver.inner.activeTurnId; i++) {
    if (i > 2_000) throw new Error('the host never learnt the running turn id');
    await new Promise((r) => setTimeout(r, 10));
  }
  return session;
}

const send = (session: string, text: string) =>
  c!.command('x.codex.control.send_input', session, { text, delivery: 'now' }, { capture: 'redacted' });

const inputs = async (session: string) =>
  (await d!.api<AgentInputRecord[]>('GET', `/api/inputs?session=${encodeURIComponent(session)}`)).json;

describe('Codex turn/steer seen-by-agent receipt (recorded wire, lockstep)', () => {
  for (const name of ['codex-app-server-0.171.0.steer', 'codex-app-server-0.171.0.steer-wrong-turn']) {
    it(`${name}: Steered, then x.codex.input.received with the turn and item, in SQLite`, async () => {
      const want = recorded(name);
      expect(want.item).not.toBeNull();
      const session = await launch(name);
      const id = send(session, want.text);
      const settled = await c!.waitEvent((e) => e.cause === id && e.type === 'x.codex.input.settled', 'settled');
      expect(settled).toMatchObject({ data: { outcome: 'steered', mechanism: 'turn-steer' } });
      const received = await c!.waitEvent((e) => e.cause === id && e.type === 'x.codex.input.received', 'received');
      expect(received).toMatchObject({
        session,
        capture: 'metadata',
        data: { input: id, turn: want.turn, item: want.item, mechanism: 'turn-steer' },
      });
      const events = () => c!.of(session);
      expect(events().indexOf(received)).toBeGreaterThan(events().indexOf(settled));
      await c!.waitEvent((e) => e.session === session && TERMINAL.includes(String(e.type)), 'run end');
      expect(events().filter((e) => TERMINAL.includes(String(e.type))).map((e) => e.type)).toEqual(['run.finished']);
      expect(events().filter((e) => e.type === 'x.codex.input.received')).toHaveLength(1);
      const row = (await inputs(session)).find((r) => r.commandId === id);
      expect(row).toMatchObject({ state: 'settled', outcome: 'steered' });
      expect(typeof row?.receivedAt).toBe('string');
      expect(Date.parse(String(row?.receivedAt))).toBeGreaterThanOrEqual(Date.parse(String(row?.settledAt)));
      const audit = d!.daemon.context.db
        .prepare("SELECT outcome FROM audit WHERE action = 'input.received' AND command_id = ?")
        .all(id);
      expect(audit).toEqual([{ outcome: 'ok' }]);
      const checked = validateStream(events() as never);
      expect(checked.ok, checked.ok ? '' : JSON.stringify(checked)).toBe(true);
    });
  }

  it('steer-interrupt: Steered, the turn interrupted before the agent showed it: no receipt, none recorded', async () => {
    const name = 'codex-app-server-0.171.0.steer-interrupt';
    const session = await launch(name);
    const id = send(session, 'STEER-ACP-MARKER');
    const settled = await c!.waitEvent((e) => e.cause === id && e.type === 'x.codex.input.settled', 'settled');
    expect(settled).toMatchObject({ data: { outcome: 'steered' } });
    c!.command('control.cancel', session, { scope: 'run' });
    await c!.waitEvent((e) => e.session === session && TERMINAL.includes(String(e.type)), 'run end');
    expect(c!.of(session).filter((e) => TERMINAL.includes(String(e.type))).map((e) => e.type)).toEqual(['run.cancelled']);
    // The receipt question is answered (null) at the turn's end; nothing follows it.
    await new Promise((r) => setTimeout(r, 200));
    expect(c!.of(session).filter((e) => e.type === 'x.codex.input.received')).toEqual([]);
    expect((await inputs(session)).find((r) => r.commandId === id)?.receivedAt).toBeNull();
  });
});

describe('SteerReceipts over the recorded notifications', () => {
  const feed = (name: string): SteerReceipts => {
    const receipts = new SteerReceipts();
    for (const l of loadWire(name).wire) {
      if (l.dir !== 'agent->client' || typeof l.msg['method'] !== 'string') continue;
      receipts.observe(l.msg['method'], l.msg['params']);
      const turn = (l.msg['params'] as { turn?: { id?: string } } | undefined)?.turn?.id;
      if (l.msg['method'] === 'turn/completed' && turn) receipts.turnEnded(turn);
    }
    return receipts;
  };

  it('the steer item is the receipt, once; the turn’s own input never is', async () => {
    const want = recorded('codex-app-server-0.171.0.steer');
    const receipts = feed('codex-app-server-0.171.0.steer');
    expect(await receipts.receipt(want.turn, want.text)).toEqual({ turnId: want.turn, itemId: want.item });
    expect(await receipts.receipt(want.turn, want.text)).toBeNull();
    expect(await receipts.receipt(want.turn, 'run the probe')).toBeNull();
    // A turn still live waits for its item; once the connection is gone nothing more arrives.
    const live = receipts.receipt('another-turn', want.text);
    receipts.close();
    expect(await live).toBeNull();
  });

  it('a question asked before the item arrives is answered when it does, and null at the turn end without it', async () => {
    const receipts = new SteerReceipts();
    const input = (id: string, text: string) => ({
      turnId: 't1',
      item: { type: 'userMessage', id, content: [{ type: 'text', text }] },
    });
    receipts.observe('item/started', input('i0', 'first'));
    const early = receipts.receipt('t1', 'steer');
    const never = receipts.receipt('t1', 'other');
    receipts.observe('item/started', input('i1', 'steer'));
    receipts.observe('item/completed', input('i1', 'steer'));
    expect(await early).toEqual({ turnId: 't1', itemId: 'i1' });
    receipts.turnEnded('t1');
    expect(await never).toBeNull();
  });

  it('steer-interrupt: no userMessage item for the steer, no receipt', async () => {
    const receipts = feed('codex-app-server-0.171.0.steer-interrupt');
    const turn = (loadWire('codex-app-server-0.171.0.steer-interrupt').wire.find((l) => l.msg['method'] === 'turn/steer')?.msg['params'] as { expectedTurnId: string }).expectedTurnId;
    expect(await receipts.receipt(turn, 'STEER-ACP-MARKER')).toBeNull();
  });
});
