/**
 * Hermes approval hooks carry `session_id: ""` and name their session only by `extra.session_key`
 * (a session id on the CLI, a platform-scoped key on the gateway). The daemon keeps that session
 * only when it already knows it; otherwise the events go to the `unknown` fallback session and no
 * session is ever minted from the key.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../common/sessions';
import { UNKNOWN_SESSION } from '../../../main/core/hooks/hook-service';
import { Consumer, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from './hooks-harness';

let d: HooksDaemon;
let consumer: Consumer;

beforeEach(async () => {
  d = await startHooksDaemon({ clock: new TestClock() });
  consumer = await Consumer.open(d.url, d.daemon.tokens.operator, {}, 'full');
});
afterEach(async () => {
  consumer.close();
  await d.close();
  removeDataDir(d.dataDir);
});

const post = (payload: unknown, query: { instruct?: boolean; permissions?: boolean } = {}) =>
  postHook(d.url, d.daemon.tokens.hook, 'hermes', payload, query);

const sessionStart = (session: string) => ({ hook_event_name: 'on_session_start', session_id: session, cwd: '/p', extra: {} });

const approval = (event: string, sessionKey: string, extra: Record<string, unknown> = {}) => ({
  hook_event_name: event,
  tool_name: null,
  tool_input: null,
  session_id: '',
  cwd: '/p',
  extra: { command: 'sudo make install', pattern_key: 'terminal:sudo', session_key: sessionKey, surface: 'gateway', ...extra },
});

async function sessions(): Promise<SessionSummary[]> {
  const res = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
  return (await res.json()) as SessionSummary[];
}

describe('Hermes approval hook sessions', () => {
  it('keeps the session named by session_key when that session is already known', async () => {
    await post(sessionStart('h1'));
    await post(approval('pre_approval_request', 'h1'));
    await post(approval('post_approval_response', 'h1', { choice: 'deny' }));
    const request = await consumer.event((e) => e.type === 'attention.requested');
    const answered = await consumer.event((e) => e.type === 'attention.answered');
    expect([request.session, answered.session]).toEqual(['h1', 'h1']);
    expect((await sessions()).map((s) => s.session)).toEqual(['h1']);
  });

  it('routes the events of an unknown session_key to the fallback session and mints no session from the key', async () => {
    const key = 'agent:main:telegram:dm:42';
    await post(sessionStart('h1'));
    await post(approval('pre_approval_request', key), { instruct: true, permissions: true });
    await post(approval('post_approval_response', key, { choice: 'once' }));
    const request = await consumer.event((e) => e.type === 'attention.requested');
    const answered = await consumer.event((e) => e.type === 'attention.answered');
    expect([request.session, answered.session]).toEqual([UNKNOWN_SESSION, UNKNOWN_SESSION]);
    // The follower still names its request inside the fallback session.
    expect(answered.subject).toBe(request.id);
    const rows = await sessions();
    expect(rows.map((s) => s.session).sort()).toEqual(['h1', UNKNOWN_SESSION].sort());
    expect(rows.some((s) => s.session === key || s.source.includes(encodeURIComponent(key)))).toBe(false);
    // Nothing can be steered or answered on the fallback session.
    expect(rows.find((s) => s.session === UNKNOWN_SESSION)).toMatchObject({ vendor: 'hermes', instructOptIn: false, permissionsOptIn: false });
  });

  it('does not confirm a key from an earlier unconfirmed hook: the key stays unknown until a real hook names it', async () => {
    await post(approval('pre_approval_request', 'h2'));
    await post(sessionStart('h2'));
    await post(approval('post_approval_response', 'h2', { choice: 'deny' }));
    const request = await consumer.event((e) => e.type === 'attention.requested');
    const answered = await consumer.event((e) => e.type === 'attention.answered');
    expect(request.session).toBe(UNKNOWN_SESSION);
    expect(answered.session).toBe('h2');
  });
});
