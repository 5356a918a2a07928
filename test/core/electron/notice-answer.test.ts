/**
 * A permission notification's Allow and Deny: offered only where notifications carry buttons and
 * only for a request the daemon can answer; a button's answer goes through relay.sendCommand, the
 * console's own gate, routing and audit (surface 'tray'), and decides the held hook. Without
 * buttons, the notification opens the request's card.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { answerFromNotice, attentionNotice, noticeAnswerCommand, notificationActionsSupported, notifyOnAttention, type AttentionNotice } from '../../../main/electron/attention-notifier';
import { ccPayload, postHook, removeDataDir, startHooksDaemon, type HooksDaemon } from '../hooks/hooks-harness';

let d: HooksDaemon | undefined;
const stops: (() => void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  if (d) {
    await d.close();
    removeDataDir(d.dataDir);
    d = undefined;
  }
});

const permissionRequest = (session: string) => ccPayload('PermissionRequest', session, { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });

/** The next notice the notifier shows. */
function nextNotice(daemon: HooksDaemon, canAct: boolean): Promise<AttentionNotice> {
  return new Promise((resolve) => {
    stops.push(notifyOnAttention({ relay: daemon.daemon.context.relay, enabled: () => true, canAct, show: resolve }));
  });
}

async function audit(daemon: HooksDaemon, action: string): Promise<Record<string, unknown>[]> {
  const r = await fetch(`${daemon.url}/api/audit?action=${action}`, { headers: { authorization: `Bearer ${daemon.daemon.tokens.operator}` } });
  return ((await r.json()) as { rows: Record<string, unknown>[] }).rows;
}

describe('notification answers', () => {
  it('buttons exist only on macOS', () => {
    expect(notificationActionsSupported('darwin')).toBe(true);
    expect(notificationActionsSupported('linux')).toBe(false);
    expect(notificationActionsSupported('win32')).toBe(false);
  });

  it('Allow from the notification decides the held hook through the audited command path', async () => {
    d = await startHooksDaemon();
    const shown = nextNotice(d, true);
    const held = postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s1'), { permissions: true });
    const notice = await shown;
    expect(notice.answers).toEqual([
      { option: 'allow', label: 'Allow' },
      { option: 'deny', label: 'Deny' },
    ]);
    expect(notice.route).toBe(`#/sessions/s1?event=${encodeURIComponent(notice.request)}`);
    expect(await answerFromNotice(d.daemon.context.relay, notice, 'allow')).toBeNull();
    expect((await held).json).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    expect((await audit(d, 'control.routed'))[0]).toMatchObject({ surface: 'tray', session: 's1', outcome: 'ok' });
    expect((await audit(d, 'permission.decision'))[0]).toMatchObject({ surface: 'tray', session: 's1', outcome: 'ok' });
    // An option the notification never offered is not sent.
    expect(await answerFromNotice(d.daemon.context.relay, notice, 'always')).toContain('no option always');
  });

  it('Deny from the notification denies', async () => {
    d = await startHooksDaemon();
    const shown = nextNotice(d, true);
    const held = postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s2'), { permissions: true });
    expect(await answerFromNotice(d.daemon.context.relay, await shown, 'deny')).toBeNull();
    expect(JSON.stringify((await held).json)).toContain('"behavior":"deny"');
  });

  it('offers no buttons where the platform has none, or when the daemon cannot answer the request', async () => {
    d = await startHooksDaemon();
    const plain = nextNotice(d, false);
    void postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s3'), { permissions: true });
    expect((await plain).answers).toEqual([]);
    for (const stop of stops.splice(0)) stop();
    // Not opted in to the permission loop: the request is answered in the agent (respond_via oob).
    const oob = nextNotice(d, true);
    void postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s4'));
    const notice = await oob;
    expect(notice.answers).toEqual([]);
    expect(notice.route).toContain('#/sessions/s4?event=');
  });

  it('builds the console-shaped answer command', () => {
    const base: AepEvent = { aep: '0.1', id: '01JREQ', type: 'attention.requested', time: '2026-12-06T10:00:00Z', source: 'urn:x', agent: 'claude-code', session: 's/1', data: { kind: 'permission', options: [{ id: 'allow', label: 'Allow' }, { id: 'deny', label: 'Deny' }], respond_via: ['control'] } };
    const notice = attentionNotice(base, true)!;
    expect(notice.route).toBe('#/sessions/s%2F1?event=01JREQ');
    expect(noticeAnswerCommand(notice, 'deny', new Date('2026-12-06T10:00:01Z'), '01JCMD')).toEqual({
      aep: '0.1',
      id: '01JCMD',
      type: 'control.attention.respond',
      time: '2026-12-06T10:00:01.000Z',
      source: 'urn:aep-companion:tray',
      agent: 'aep-companion',
      session: 's/1',
      subject: '01JREQ',
      cause: '01JREQ',
      data: { answer: { option: 'deny' } },
      surface: 'tray',
    });
    expect(attentionNotice({ ...base, data: { kind: 'form' } }, true)!.answers).toEqual([]);
    expect(attentionNotice({ ...base, session: undefined }, true)).toMatchObject({ route: '#/inbox', answers: [] });
  });
});
