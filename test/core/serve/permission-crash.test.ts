/**
 * kill -9 of `serve` while it holds a permission hook: the hook is hung up on (the vendor falls back
 * to its own dialog), and after a restart the request it left open is dismissed in the record,
 * with an audit row, so no console keeps an answerable card the daemon can no longer answer.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { validateStream } from '../../../main/core/aep/stream-checker';
import { startServe, streamUntil } from './crash-rig';
import type { ServeChild } from './serve-process';

const children: ServeChild[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const hook = (url: string, token: string, payload: Record<string, unknown>): Promise<Response> =>
  fetch(`${url}/hooks/claude-code?permissions=1`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: 'held-1', cwd: '/work/project', transcript_path: '/tmp/t.jsonl', ...payload }),
  });

describe('serve crash with a held permission hook', () => {
  it('after kill -9 and a restart the open request is dismissed and audited; the session stays valid AEP', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aep-permission-crash-'));
    dirs.push(root);
    const dataDir = join(root, 'data');
    const { serve: first, url, operator } = await startServe(dataDir, children);
    const hookToken = readFileSync(join(dataDir, 'hook-token'), 'utf8').trim();
    expect((await hook(url, hookToken, { hook_event_name: 'SessionStart', source: 'startup' })).status).toBe(200);
    const held = hook(url, hookToken, { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }).then(
      () => 'answered',
      () => 'hung up',
    );
    const before = await streamUntil(url, operator, (events) => events.some((e) => e.type === 'attention.requested'));
    const card = before.find((e) => e.type === 'attention.requested') as AepEvent;
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await held).toBe('hung up');

    const { serve: second, url: url2 } = await startServe(dataDir, children);
    const events = await streamUntil(url2, operator, (all) => all.some((e) => e.type === 'attention.resolved' && e.subject === card.id));
    const own = events.filter((e) => e.session === 'held-1');
    const closing = own.filter((e) => e.subject === card.id && (e.type === 'attention.resolved' || e.type === 'attention.timeout'));
    expect(closing).toHaveLength(1);
    expect(closing[0]).toMatchObject({ type: 'attention.resolved', cause: card.id, data: { resolution: 'dismissed' } });
    expect(closing[0].epoch as number).toBeGreaterThan(card.epoch as number);
    const verdict = validateStream(own);
    expect(verdict.ok, verdict.ok ? '' : verdict.error.message).toBe(true);
    const audit = await fetch(`${url2}/api/audit?action=permission.dismissed`, { headers: { authorization: `Bearer ${operator}` } });
    expect(((await audit.json()) as { rows: unknown[] }).rows).toMatchObject([{ actor: 'daemon', session: 'held-1', outcome: 'dismissed' }]);

    // A third start finds nothing left open: nothing is dismissed twice.
    second.child.kill('SIGKILL');
    await second.exited;
    const { serve: third, url: url3 } = await startServe(dataDir, children);
    const again = await fetch(`${url3}/api/audit?action=permission.dismissed`, { headers: { authorization: `Bearer ${operator}` } });
    expect(((await again.json()) as { rows: unknown[] }).rows).toHaveLength(1);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  });
});
