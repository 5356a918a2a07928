import { describe, expect, it } from 'vitest';
import { INPUT_OUTCOMES } from '../../../../common/agent-inputs';
import {
  SESSION_STEER,
  SENT_OUTCOMES,
  stepInput,
  stepSession,
  steerInFlight,
  type SessionSteerEvent,
  type SessionSteerState,
} from '../../../../common/input-lifecycle';

const STATES = Object.keys(SESSION_STEER) as SessionSteerState[];
const EVENTS: SessionSteerEvent[] = [
  'offer',
  'retract',
  'submit',
  'fold',
  'defer',
  'degrade',
  'error',
  'successor-settled',
  'cancel',
  'connection-lost',
  'replaced',
];

describe('session steer lifecycle (the spec state machine)', () => {
  it('walks the fold path and the defer path back to none', () => {
    const walk = (events: SessionSteerEvent[]) =>
      events.reduce<SessionSteerState>((s, e) => {
        const next = stepSession(s, e);
        if (!next.ok) throw new Error(next.error.message);
        return next.value;
      }, 'none');
    expect(walk(['offer', 'submit', 'fold', 'successor-settled'])).toBe('none');
    expect(walk(['offer', 'submit', 'defer', 'successor-settled'])).toBe('none');
    expect(walk(['offer', 'submit', 'degrade'])).toBe('none');
    expect(walk(['offer', 'submit', 'error'])).toBe('none');
  });

  it('cancel, a lost connection and a replaced session end a steer from every state', () => {
    for (const state of STATES) {
      for (const event of ['cancel', 'connection-lost', 'replaced'] as const)
        expect(stepSession(state, event)).toEqual({ ok: true, value: 'none' });
    }
  });

  it('refuses what the machine does not allow, with a message', () => {
    expect(stepSession('none', 'submit')).toMatchObject({
      ok: false,
      error: { code: 'illegal-transition' },
    });
    expect(stepSession('folded', 'submit')).toMatchObject({ ok: false });
    expect(stepSession('sent', 'submit')).toMatchObject({ ok: false });
    expect(stepSession('offered', 'fold')).toMatchObject({ ok: false });
  });

  it('is total: every state × event either moves to a known state or is refused', () => {
    for (const state of STATES) {
      for (const event of EVENTS) {
        const next = stepSession(state, event);
        if (next.ok) expect(STATES).toContain(next.value);
      }
    }
  });

  it('only `sent` holds a steer in flight', () => {
    expect(STATES.filter(steerInFlight)).toEqual(['sent']);
  });
});

describe('durable input lifecycle', () => {
  it('queued → sent → settled, once', () => {
    expect(stepInput('queued', { kind: 'send' })).toEqual({
      ok: true,
      value: { state: 'sent', outcome: null },
    });
    expect(stepInput('sent', { kind: 'settle', outcome: 'steered' })).toEqual({
      ok: true,
      value: { state: 'settled', outcome: 'steered' },
    });
    for (const outcome of INPUT_OUTCOMES)
      expect(stepInput('settled', { kind: 'settle', outcome }).ok).toBe(false);
  });

  it('a queued message can be edited, reordered or dropped; a sent one cannot', () => {
    expect(stepInput('queued', { kind: 'edit' }).ok).toBe(true);
    expect(stepInput('queued', { kind: 'reorder' }).ok).toBe(true);
    expect(stepInput('queued', { kind: 'drop' })).toEqual({
      ok: true,
      value: { state: 'settled', outcome: 'dropped' },
    });
    expect(stepInput('sent', { kind: 'edit' }).ok).toBe(false);
    expect(stepInput('sent', { kind: 'drop' }).ok).toBe(false);
  });

  it('a sent message never settles as dropped (it may have reached the agent); a queued one only as dropped', () => {
    expect(SENT_OUTCOMES.has('dropped')).toBe(false);
    expect(stepInput('sent', { kind: 'settle', outcome: 'dropped' }).ok).toBe(false);
    expect(stepInput('queued', { kind: 'settle', outcome: 'steered' }).ok).toBe(false);
  });

  it('only a sent steer can go back to the queue (requeue), and nothing settled ever does', () => {
    expect(stepInput('sent', { kind: 'requeue' })).toEqual({
      ok: true,
      value: { state: 'queued', outcome: null },
    });
    expect(stepInput('queued', { kind: 'requeue' }).ok).toBe(false);
    expect(stepInput('settled', { kind: 'requeue' }).ok).toBe(false);
  });
});
