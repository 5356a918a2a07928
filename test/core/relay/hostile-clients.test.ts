/**
 * Hostile clients holding a valid token (issue 8 §4, wire items): control characters in routing
 * attributes cannot forge SSE lines on any binding; an outside emitter cannot claim a session the
 * companion's own adapters own, nor one another emitter introduced; our own tokens never reach the
 * history or a stream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { EmitError } from '../../../main/core/relay/emitter-link';
import {
  makeCommand,
  makeEvent,
  postEvents,
  replayAll,
  SseClient,
  startTestDaemon,
  WsClient,
  type TestDaemon,
} from './harness';

let d: TestDaemon;
const clients: WsClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await d?.stop();
});
const track = (c: WsClient): WsClient => {
  clients.push(c);
  return c;
};

describe('control characters in routing attributes', () => {
  it('are refused on HTTP, WS and in-process emits, so no SSE id: line is ever forged', async () => {
    d = await startTestDaemon();
    const sse = await SseClient.open(d.url, '/stream', {
      Authorization: `Bearer ${d.tokens.operator}`,
    });
    const forged = makeEvent({ session: 'x:0:1\nid: forged\nevent: session.ended\ndata: {}\n\nq' });
    const http = await postEvents(d.url, d.tokens.hook, forged);
    expect(http.status).toBe(400);
    expect((http.json as { detail: string }).detail).toMatch(
      /session contains a control character/,
    );
    for (const key of ['id', 'source', 'agent', 'run', 'step']) {
      expect((await postEvents(d.url, d.tokens.hook, makeEvent({ [key]: 'a\rb' }))).status).toBe(
        400,
      );
    }

    const ws = track(await WsClient.hello(d.url, d.tokens.hook, { role: 'emitter' }));
    ws.send(makeEvent({ session: 'y\r\nid: forged' }));
    expect(await ws.next((f) => f.type === 'error')).toMatchObject({ code: 'invalid-event' });

    const link = d.context.relay.attachEmitter({ agent: 'inproc', instance: 'i' });
    await expect(link.emit(makeEvent({ session: 'z\nid: forged' }))).rejects.toBeInstanceOf(
      EmitError,
    );
    link.close();

    await postEvents(
      d.url,
      d.tokens.hook,
      makeEvent({ session: 'clean', subject: 'free\ntext is fine' }),
    );
    await sse.until((c) => c.events().length === 1);
    expect(sse.raw).not.toContain('forged');
    expect(sse.messages.filter((m) => m.id !== undefined).map((m) => m.id)).toEqual([
      expect.stringMatching(/^clean:0:\d+$/),
    ]);
    sse.close();
  });
});

describe('outside claims', () => {
  async function emitter(token: string, accepts: string[] = ['control.pause']): Promise<WsClient> {
    return track(
      await WsClient.hello(d.url, token, {
        role: 'emitter',
        identity: { agent: 'outside' },
        capabilities: { control: { accepts } },
      }),
    );
  }

  it('an outside emitter cannot claim a session the companion owns, and receives none of its commands', async () => {
    d = await startTestDaemon();
    const ours = d.context.relay.attachEmitter({ agent: 'claude-code', instance: 'aep-companion' });
    const received: string[] = [];
    ours.onCommand((command) => void received.push(command.id));
    ours.claim('owned', { accepts: ['control.pause'] });

    for (const token of [d.tokens.hook, d.tokens.operator]) {
      const hostile = await emitter(token);
      const event = makeEvent({ session: 'owned', source: 'aep://evil' });
      hostile.send(event);
      const refusal = await hostile.next((f) => f.type === 'error');
      expect(refusal).toMatchObject({ code: 'unauthorized', id: event.id });
      expect(String(refusal.detail)).toMatch(/belongs to one of the companion's own adapters/);
    }
    const operator = track(await WsClient.hello(d.url, d.tokens.operator));
    operator.send({ type: 'roster', id: 'r' });
    const roster = await operator.next((f) => f.type === 'roster');
    expect(
      (roster.entries as { session: string; agent?: string }[]).filter(
        (e) => e.session === 'owned',
      ),
    ).toEqual([
      {
        session: 'owned',
        agent: 'claude-code',
        instance: 'aep-companion',
        control: { accepts: ['control.pause'] },
      },
    ]);
    const command = makeCommand('owned', 'control.pause');
    operator.send(command);
    await operator.sync();
    expect(received).toEqual([command.id]);
    expect(operator.frames.filter((f) => f.type === 'error')).toEqual([]);
    expect((await replayAll(d.url, d.tokens.operator)).some((e) => e.source === 'aep://evil')).toBe(
      false,
    );
    ours.close();
  });

  it('a session claimed from outside first is taken over by the companion adapter that claims it', async () => {
    d = await startTestDaemon();
    const early = await emitter(d.tokens.hook);
    early.send(makeEvent({ session: 'raced', source: 'aep://early' }));
    await early.sync();
    const ours = d.context.relay.attachEmitter({ agent: 'codex', instance: 'aep-companion' });
    ours.claim('raced', { accepts: ['control.pause'] });
    expect(d.context.relay.claims.claimants('raced').map((c) => c.agent)).toEqual(['codex']);
    early.send(makeEvent({ session: 'raced', source: 'aep://early' }));
    expect(await early.next((f) => f.type === 'error')).toMatchObject({ code: 'unauthorized' });
    ours.close();
  });

  it('an outside emitter may only claim sessions it introduced (the same source may reconnect)', async () => {
    d = await startTestDaemon();
    const first = await emitter(d.tokens.hook);
    first.send(makeEvent({ session: 'mine', source: 'aep://first' }));
    await first.sync();
    const other = await emitter(d.tokens.hook);
    const stolen = makeEvent({ session: 'mine', source: 'aep://other' });
    other.send(stolen);
    const refusal = await other.next((f) => f.type === 'error');
    expect(refusal).toMatchObject({ code: 'unauthorized', id: stolen.id });
    expect(String(refusal.detail)).toMatch(/only claim sessions it introduced/);
    first.close();
    const again = await emitter(d.tokens.hook);
    again.send(makeEvent({ session: 'mine', source: 'aep://first' }));
    await again.sync();
    expect(again.frames.filter((f) => f.type === 'error')).toEqual([]);
    expect(d.context.relay.claims.claimants('mine')).toHaveLength(1);
  });
});

describe('in-band refusals', () => {
  it('are audited at most 20 times a minute per kind, however often a peer repeats them', async () => {
    d = await startTestDaemon();
    const hook = track(await WsClient.hello(d.url, d.tokens.hook));
    for (let i = 0; i < 50; i++) hook.send({ type: 'subscribe', id: `s${i}` });
    await hook.until((c) => c.frames.filter((f) => f.code === 'unauthorized').length === 50);
    const rows = d.context.audit.query({ action: 'auth.refused', limit: 500 }).rows;
    expect(
      rows.filter((r) => (r.detail as { request?: string }).request === 'subscribe'),
    ).toHaveLength(20);
  });
});

describe("the daemon's own tokens", () => {
  it('never reach the history or a stream, whichever emitter sends them', async () => {
    d = await startTestDaemon();
    const sse = await SseClient.open(d.url, '/stream', {
      Authorization: `Bearer ${d.tokens.operator}`,
    });
    const { operator, hook } = d.tokens;
    await postEvents(
      d.url,
      hook,
      makeEvent({
        session: 't',
        type: 'progress.status',
        capture: 'full',
        data: { message: `printed ${operator} and ${hook}` },
      }),
    );
    const link = d.context.relay.attachEmitter({ agent: 'inproc', instance: 'i' });
    await link.emit(
      makeEvent({
        session: 't2',
        source: 'aep://inproc',
        capture: 'full',
        data: { message: `env: TOKEN=${operator}` },
      }),
    );
    link.close();
    await sse.until((c) => c.events().length === 2);
    const stored = await replayAll(d.url, operator);
    for (const text of [sse.raw, JSON.stringify(stored)]) {
      expect(text).not.toContain(operator);
      expect(text).not.toContain(hook);
      expect(text).toContain('[REDACTED:secret]');
    }
    expect(
      (stored.find((e) => e.session === 't') as AepEvent & { data: { message: string } }).data
        .message,
    ).toBe('printed [REDACTED:secret] and [REDACTED:secret]');
    sse.close();
  });
});
