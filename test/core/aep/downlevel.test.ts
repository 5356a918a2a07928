import { describe, expect, it } from 'vitest';
import { downlevel, validateEvent } from '../../../main/core/aep';
import { CAPTURES, captureRank, type AepEvent, type Capture } from '../../../common/aep/envelope';
import { fixture, goldenEvents } from './corpus';

interface DownlevelCase {
  readonly name: string;
  readonly ceiling: Capture;
  readonly event: AepEvent;
  readonly expect_capture: Capture;
  readonly expect_data: Record<string, unknown> | null;
}
const cases = fixture<{ cases: DownlevelCase[] }>('downlevel/cases.json').cases;

describe('downlevel corpus (downlevel/cases.json)', () => {
  it.each(cases.map((c) => [`${c.event.id}: ${c.name}`, c] as const))('%s', (_name, c) => {
    const before = structuredClone(c.event);
    const out = downlevel(c.event, c.ceiling);
    expect(out.capture).toBe(c.expect_capture);
    if (c.expect_data === null) expect('data' in out).toBe(false);
    else expect(out.data).toEqual(c.expect_data);
    // Core attributes other than capture are never altered, and the input is never mutated.
    const { capture: _c1, data: _d1, ...outRest } = out;
    const { capture: _c2, data: _d2, ...inRest } = c.event;
    expect(outRest).toEqual(inRest);
    expect(c.event).toEqual(before);
  });

  it('returns the same object when the ceiling is not lower (DL7)', () => {
    const c = cases.find((x) => x.event.id === 'DL7');
    expect(c).toBeDefined();
    if (c) expect(downlevel(c.event, c.ceiling)).toBe(c.event);
  });
});

describe('downlevel beyond the corpus', () => {
  const golden = goldenEvents() as AepEvent[];

  it('never up-levels: a ceiling at or above the event level returns the event itself', () => {
    for (const e of golden) {
      for (const ceiling of CAPTURES) {
        if (captureRank(ceiling) >= captureRank(e.capture)) expect(downlevel(e, ceiling)).toBe(e);
      }
    }
  });

  it('keeps every golden event valid at every lower ceiling, with capture rewritten', () => {
    for (const e of golden) {
      for (const ceiling of CAPTURES) {
        if (captureRank(ceiling) >= captureRank(e.capture)) continue;
        const out = downlevel(e, ceiling);
        expect(out.capture).toBe(ceiling);
        const result = validateEvent(out);
        expect(result.ok ? 'valid' : `${e.id} at ${ceiling}: ${result.error.message}`).toBe(
          'valid',
        );
      }
    }
  });

  it('drops redacted-gated text of golden events at metadata (no free text survives)', () => {
    const failed = golden.find((e) => e.type === 'tool.failed' && e.capture === 'redacted');
    expect(failed).toBeDefined();
    if (!failed) return;
    const out = downlevel(failed, 'metadata');
    expect(JSON.stringify(out.data)).not.toContain('"message"');
  });

  it('as a redacting re-emitter, lands a full event on redacted and runs the pipeline over redacted-gated text', () => {
    const event = {
      aep: '0.1',
      id: 'RR1',
      type: 'tool.failed',
      subject: 'Bash',
      time: '2026-07-03T10:00:00Z',
      source: 'aep://h/agent/a',
      agent: 'a',
      session: 's1',
      seq: 1,
      capture: 'full',
      data: {
        tool: { name: 'Bash' },
        error: { type: 'ExecError', message: 'failed with password=hunter2sequel in /home/ann/x' },
      },
    } as AepEvent;
    const mechanical = downlevel(event, 'redacted');
    expect(mechanical.capture).toBe('metadata');
    const out = downlevel(event, 'redacted', { redact: { home: '/home/ann' } });
    expect(out.capture).toBe('redacted');
    expect(out.data).toEqual({
      tool: { name: 'Bash' },
      error: { type: 'ExecError', message: 'failed with password=[REDACTED:secret] in ~/x' },
    });
  });

  it('synthesizes an attention prompt without a subject from agent and kind only', () => {
    const event = {
      aep: '0.1',
      id: 'P1',
      type: 'attention.requested',
      time: '2026-07-03T10:00:00Z',
      source: 'aep://h/agent/a',
      agent: 'qwen-code',
      session: 's1',
      seq: 1,
      capture: 'redacted',
      data: { kind: 'input', prompt: 'What is the admin password?' },
    } as AepEvent;
    expect(downlevel(event, 'metadata').data).toEqual({
      kind: 'input',
      prompt: 'qwen-code requests input',
    });
  });
});
