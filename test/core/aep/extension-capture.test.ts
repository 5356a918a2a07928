/**
 * Capture levels of this project's own extension types, which have no registered schema: the
 * steering verb `x.{vendor}.control.instruct` carries `{ text }` as redacted-class content (steering
 * design record), and `x.{vendor}.instruction.delivered` / `.dropped` carry no free text. Validation
 * refuses an instruction declared below `redacted`, and down-leveling strips the text.
 */
import { describe, expect, it } from 'vitest';
import type { AepEvent, Capture } from '../../../common/aep/envelope';
import { downlevel, validateEvent } from '../../../main/core/aep';

const instruct = (capture: Capture | undefined, data: Record<string, unknown> = { text: 'run the linter first' }): AepEvent =>
  ({
    aep: '0.1',
    id: '01KCMD00000000000000000001',
    type: 'x.claude-code.control.instruct',
    time: '2026-11-29T10:00:00.000Z',
    source: 'aep://test/console',
    agent: 'operator',
    session: 's1',
    ...(capture === undefined ? {} : { capture }),
    data,
  }) as AepEvent;

const outcome = (kind: 'delivered' | 'dropped', capture: Capture, data: Record<string, unknown>): AepEvent =>
  ({
    aep: '0.1',
    id: `01KOUT${kind === 'delivered' ? 'D' : 'X'}0000000000000000001`,
    type: `x.codex.instruction.${kind}`,
    time: '2026-11-29T10:00:00.000Z',
    source: 'aep://localhost/agent/codex/session/s1',
    agent: 'codex',
    session: 's1',
    seq: 3,
    epoch: 1,
    cause: '01KCMD00000000000000000001',
    capture,
    data,
  }) as AepEvent;

const verdict = (event: unknown): string => {
  const result = validateEvent(event);
  return result.ok ? 'accepted' : result.error.message;
};

describe('x.{vendor}.control.instruct capture', () => {
  it('refuses an instruction whose declared capture is below redacted while it carries text', () => {
    // An absent capture is the default posture, metadata (AEP-0001 §8.2(d)).
    for (const capture of ['metadata', undefined] as const) {
      const message = verdict(instruct(capture));
      expect(message).toContain('AEP-0001 §8.2(a)');
      expect(message).toContain('data/text is gated redacted');
      expect(message).toContain('declare capture "redacted" or higher');
    }
    expect(verdict(instruct('none'))).toContain('AEP-0001 §8.2(a): capture none carries no payload content');
  });

  it('accepts the instruction at redacted or full, and an empty payload at none', () => {
    expect(verdict(instruct('redacted'))).toBe('accepted');
    expect(verdict(instruct('full'))).toBe('accepted');
    expect(verdict(instruct('none', {}))).toBe('accepted');
  });

  it('applies to every vendor token, not just the ones this app knows', () => {
    expect(verdict({ ...instruct('metadata'), type: 'x.acme-agent.control.instruct' })).toContain('data/text is gated redacted');
    // Another vendor verb keeps the old rule: without annotations nothing is checked.
    expect(verdict({ ...instruct('metadata'), type: 'x.acme.control.restart' })).toBe('accepted');
  });

  it('strips the text for a metadata ceiling and keeps other fields', () => {
    const event = instruct('redacted', { text: 'secret plans', priority: 2 });
    const out = downlevel(event, 'metadata');
    expect(out.capture).toBe('metadata');
    expect(out.data).toEqual({ priority: 2 });
    expect(verdict(out)).toBe('accepted');
    expect(event.data).toEqual({ text: 'secret plans', priority: 2 });
  });

  it('drops the payload at a none ceiling and passes it unchanged at redacted', () => {
    const event = instruct('redacted');
    const none = downlevel(event, 'none');
    expect(['data' in none, none.capture]).toEqual([false, 'none']);
    expect(downlevel(event, 'redacted')).toBe(event);
  });

  it('lands a full instruction on metadata under a redacted ceiling unless the hop redacts', () => {
    const event = instruct('full', { text: 'token sk-live-abcdefghijklmnopqrstuvwx' });
    const out = downlevel(event, 'redacted');
    expect(out.capture).toBe('metadata');
    expect(out.data).toEqual({});
  });
});

describe('x.{vendor}.instruction.delivered / .dropped capture', () => {
  it('keeps their structural payload when down-leveled to metadata (they carry no free text)', () => {
    const delivered = outcome('delivered', 'redacted', { queued_ms: 1200, moment: 'UserPromptSubmit' });
    const dropped = outcome('dropped', 'redacted', { reason: 'session-ended', queued_ms: 40 });
    expect(downlevel(delivered, 'metadata').data).toEqual({ queued_ms: 1200, moment: 'UserPromptSubmit' });
    expect(downlevel(dropped, 'metadata').data).toEqual({ reason: 'session-ended', queued_ms: 40 });
  });

  it('validates them at metadata', () => {
    expect(verdict(outcome('delivered', 'metadata', { queued_ms: 1, moment: 'Stop' }))).toBe('accepted');
    expect(verdict(outcome('dropped', 'metadata', { reason: 'steering-disabled' }))).toBe('accepted');
  });
});

describe('capture none without data', () => {
  it('accepts an envelope-only event of a type whose payload has required fields', () => {
    const request = {
      aep: '0.1',
      id: '01KREQ00000000000000000001',
      type: 'attention.requested',
      time: '2026-11-29T10:00:00.000Z',
      source: 'aep://localhost/agent/codex/session/s1',
      agent: 'codex',
      session: 's1',
      seq: 1,
      epoch: 1,
      capture: 'none',
    };
    expect(verdict(request)).toBe('accepted');
    // With an empty payload present, the payload schema still applies.
    expect(verdict({ ...request, data: {} })).toContain('AEP-0002 §5 payload schema (attention.requested)');
  });
});
