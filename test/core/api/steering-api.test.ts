/** /api/steering (the kill switch), /api/instructions and /api/vendors against a real daemon. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSteeringPut } from '../../../main/core/steering/steering-api';
import { ccPayload, command, Consumer, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from '../hooks/hooks-harness';

let d: HooksDaemon;
beforeEach(async () => {
  d = await startHooksDaemon({ clock: new TestClock() });
});
afterEach(async () => {
  await d.close();
  removeDataDir(d.dataDir);
});

async function call(method: string, path: string, body?: unknown, token = d.daemon.tokens.operator): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe('/api/steering', () => {
  it('reports steering off by default', async () => {
    expect(await call('GET', '/api/steering')).toEqual({ status: 200, json: { enabled: false } });
  });

  it('turns steering on with the operator token, persists it and audits the flip with its surface', async () => {
    expect(await call('PUT', '/api/steering', { enabled: true, surface: 'console' })).toEqual({ status: 200, json: { enabled: true } });
    const audit = (await call('GET', '/api/audit?action=steering.enabled')).json as { rows: Record<string, unknown>[] };
    expect(audit.rows[0]).toMatchObject({ actor: 'operator', surface: 'console', outcome: 'ok' });
    const dataDir = d.dataDir;
    await d.close();
    d = await startHooksDaemon({ dataDir, clock: new TestClock() });
    expect((await call('GET', '/api/steering')).json).toEqual({ enabled: true });
  });

  it('counts a flip without a surface as coming from the api', async () => {
    await call('PUT', '/api/steering', { enabled: true });
    const audit = (await call('GET', '/api/audit?action=steering.enabled')).json as { rows: Record<string, unknown>[] };
    expect(audit.rows[0]).toMatchObject({ surface: 'api' });
  });

  it('refuses the hook token', async () => {
    const res = await call('PUT', '/api/steering', { enabled: true }, d.daemon.tokens.hook);
    expect(res.status).toBeGreaterThanOrEqual(401);
    expect(res.status).toBeLessThanOrEqual(403);
    expect((await call('GET', '/api/steering')).json).toEqual({ enabled: false });
  });

  it('refuses a malformed body with a clear 400', async () => {
    const res = await call('PUT', '/api/steering', { enabled: 'yes' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ detail: expect.stringContaining('enabled') });
    expect(parseSteeringPut({ enabled: true, surface: 'fax' })).toMatchObject({ ok: false });
    expect(parseSteeringPut([])).toMatchObject({ ok: false });
  });
});

describe('/api/instructions', () => {
  it("lists each instruction's fate, filtered by session", async () => {
    await call('PUT', '/api/steering', { enabled: true });
    await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionStart', 's1'), { instruct: true });
    await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionStart', 's2'), { instruct: true });
    const c = await Consumer.open(d.url, d.daemon.tokens.operator);
    try {
      const a = command('x.claude-code.control.instruct', 's1', { text: 'one' });
      const b = command('x.claude-code.control.instruct', 's2', { text: 'two' });
      c.send(a);
      c.send(b);
      await c.event((e) => e.cause === b.id);
      await c.event((e) => e.cause === a.id);
      const all = (await call('GET', '/api/instructions')).json as { commandId: string; state: string }[];
      expect(all.map((r) => r.commandId).sort()).toEqual([a.id, b.id].sort());
      expect((await call('GET', '/api/instructions?session=s2')).json).toEqual([
        expect.objectContaining({ commandId: b.id, session: 's2', vendor: 'claude-code', state: 'queued', moment: null }),
      ]);
      expect((await call('GET', '/api/instructions?session=')).status).toBe(400);
    } finally {
      c.close();
    }
  });
});

describe('/api/vendors', () => {
  it('serves every vendor profile with its delivery moments, cap and session-end moment', async () => {
    const vendors = (await call('GET', '/api/vendors')).json as { id: string; sessionEndMoment: string | null; contextCap: number | null }[];
    expect(vendors.map((v) => v.id)).toEqual(['claude-code', 'codex', 'qwen-code', 'vscode', 'hermes', 'cline']);
    expect(vendors.find((v) => v.id === 'cline')?.sessionEndMoment).toBe('session_shutdown');
    expect(vendors.find((v) => v.id === 'codex')?.sessionEndMoment).toBeNull();
    expect(vendors.find((v) => v.id === 'claude-code')?.contextCap).toBe(10_000);
  });
});
