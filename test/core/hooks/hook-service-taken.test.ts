/**
 * `HookService.handleTaken` on its own: a call the intake took is handled without an async
 * function around it, and whatever fails after its reply went out (its events' commit, its
 * session's end) is logged and audited as `handle` does, never a rejection nobody handles.
 */
import { describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { HookService } from '../../../main/core/hooks/hook-service';
import type { SessionTracker } from '../../../main/core/hooks/session-tracker';
import { VendorEmitter } from '../../../main/core/steering/vendor-emitter';
import type { PermissionLoop } from '../../../main/core/steering/permission-loop';
import type { SteeringEngine } from '../../../main/core/steering/steering-engine';
import { vendorAdapter } from '../../../main/core/vendors';
import type { HookCall } from '../../../main/core/vendors/types';
import type { EmitterLink } from '../../../main/core/relay/emitter-link';
import { createLogger } from '../../../main/core/logger';

function service(options: { emit?: () => Promise<void>; ended?: () => void }) {
  const audits: { action: string; outcome: string; detail: unknown }[] = [];
  const emitted: AepEvent[] = [];
  const ended: string[] = [];
  const link: EmitterLink = {
    claim: () => undefined,
    release: () => undefined,
    emit: (events) => {
      emitted.push(...(Array.isArray(events) ? events : [events as AepEvent]));
      return options.emit?.() ?? Promise.resolve();
    },
    onCommand: () => () => undefined,
    close: () => undefined,
  };
  const emitter = new VendorEmitter('claude-code', link, 1, () => 1_000, (() => { let n = 0; return () => `ID${++n}`; })());
  const tracker = {
    sighted: () => ({ state: 'active', permissionsOptIn: false, instructOptIn: false }),
    revived: (row: unknown) => row,
    known: () => true,
    ended: (_vendor: string, session: string) => {
      options.ended?.();
      ended.push(session);
    },
  } as unknown as SessionTracker;
  const s = new HookService({
    tracker,
    engine: { sessionEnded: () => undefined } as unknown as SteeringEngine,
    permissions: { dismissSession: () => undefined, withDeadline: (e: unknown) => e } as unknown as PermissionLoop,
    emitter: () => emitter,
    adapter: vendorAdapter,
    mappingContext: () => ({ capture: { default: 'redacted', attention: 'redacted' }, redact: (t: string) => t, newRunId: () => 'run-1', permissionLoop: false }),
    audit: (row) => audits.push({ action: row.action, outcome: row.outcome, detail: row.detail }),
    logger: createLogger('test'),
  });
  return { s, audits, emitted, ended };
}

const parsed = (payload: Record<string, unknown>): HookCall => {
  const result = vendorAdapter('claude-code').parse({ session_id: 'sess', cwd: '/work', ...payload });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
};

describe('HookService.handleTaken', () => {
  it('emits the call\'s events and records its session\'s end once they are committed', async () => {
    const { s, emitted, ended, audits } = service({});
    await s.handleTaken('claude-code', parsed({ hook_event_name: 'SessionEnd', reason: 'exit' }));
    expect(emitted.map((e) => e.type)).toContain('session.ended');
    expect(ended).toEqual(['sess']);
    expect(audits).toEqual([]);
    await s.settled();
  });

  it('logs and audits a commit that failed, and a session end that could not be recorded, and settles either way', async () => {
    const failedCommit = service({ emit: () => Promise.reject(new Error('disk gone')) });
    await expect(failedCommit.s.handleTaken('claude-code', parsed({ hook_event_name: 'SessionEnd', reason: 'exit' }))).resolves.toBeUndefined();
    expect(failedCommit.ended).toEqual([]);
    expect(failedCommit.audits).toEqual([{ action: 'hook.error', outcome: 'error', detail: { moment: 'SessionEnd', error: 'disk gone' } }]);

    const failedEnd = service({ ended: () => { throw new Error('sessions table gone'); } });
    await expect(failedEnd.s.handleTaken('claude-code', parsed({ hook_event_name: 'SessionEnd', reason: 'exit' }))).resolves.toBeUndefined();
    expect(failedEnd.audits).toEqual([{ action: 'hook.error', outcome: 'error', detail: { moment: 'SessionEnd', error: 'sessions table gone' } }]);
    // Nothing is left running for a shutdown to wait on.
    await failedEnd.s.settled();
  });
});
