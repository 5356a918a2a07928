/** Search over a real launched Codex session (codex app-server against the Responses stub), as a user types it. */
import { afterEach, describe, expect, it } from 'vitest';
import type { SearchPage } from '../../common/api';
import { startResponsesStub } from '../support/model-stubs/openai-responses-stub';
import type { StubServer } from '../support/model-stubs/stub-server';
import { openLaunchRig, TERMINAL, type LaunchRig } from './launch-rig';

type Json = Record<string, unknown>;
let rig: LaunchRig | null = null;
let stub: StubServer | null = null;
afterEach(async () => {
  await rig?.close();
  await stub?.close();
  rig = null;
  stub = null;
});

describe('search on a launched Codex session', () => {
  it('finds hyphens, flags and paths as typed, the session by its id, and never answers with SQL', async () => {
    stub = await startResponsesStub([
      { shell: 'ls -la src/app.ts; echo steer-probe' },
      { text: 'Listed src/app.ts for the steer-probe.' },
    ]);
    rig = await openLaunchRig('codex', stub);
    const res = await rig.d.api<Json>('POST', '/api/launch', {
      agent: 'codex',
      cwd: rig.cwd,
      prompt: 'List src/app.ts and echo steer-probe.',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const session = String(res.json.session);
    await rig.c.waitEvent(
      (e) => e.session === session && TERMINAL.includes(String(e.type)),
      'run end',
      150_000,
    );
    const search = async (q: string, mode?: string) => {
      const r = await rig!.d.api<SearchPage & { detail?: string }>(
        'GET',
        `/api/search?${new URLSearchParams({ q, ...(mode ? { mode } : {}) })}`,
      );
      return { status: r.status, page: r.json };
    };
    for (const q of ['steer-probe', 'ls -la', 'src/app.ts', '"src/app.ts"']) {
      const { status, page } = await search(q);
      expect(status, q).toBe(200);
      expect(page.hits.length, q).toBeGreaterThan(0);
      expect(
        page.hits.every((h) => h.session === session),
        q,
      ).toBe(true);
    }
    const byId = await search(session);
    expect(byId.status).toBe(200);
    expect(byId.page.hits[0]).toMatchObject({ session, snippet: `session [${session}]` });
    const bad = await search('steer-probe AND', 'advanced');
    expect(bad.status).toBe(400);
    expect(bad.page.detail).not.toMatch(/fts5|syntax error|no such column|SQLITE/i);
  });
});
