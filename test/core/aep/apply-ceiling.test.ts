import { describe, expect, it } from 'vitest';
import { applyCeiling, contentDigest, validateEvent } from '../../../main/core/aep';
import type { AepEvent } from '../../../common/aep/envelope';

const draft = (
  type: string,
  data: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): AepEvent =>
  ({
    aep: '0.1',
    id: 'D1',
    type,
    time: '2026-07-03T10:00:00Z',
    source: 'aep://h/agent/claude-code/session/s1',
    agent: 'claude-code',
    session: 's1',
    seq: 1,
    ...extra,
    data,
  }) as AepEvent;

const output = 'wrote /home/ann/app/.env with API_KEY=sk_live_abcdef123456';
const completed = draft(
  'tool.completed',
  { tool: { name: 'Bash', call_id: 't1' }, status: 'success', result: output },
  { subject: 'Bash' },
);

describe('applyCeiling (adapter-side capture ceiling)', () => {
  it('at metadata drops verbatim content and adds its digest over the original', () => {
    const out = applyCeiling(completed, 'metadata');
    expect(out.capture).toBe('metadata');
    expect(out.data).toEqual({
      tool: { name: 'Bash', call_id: 't1' },
      status: 'success',
      result_digest: contentDigest(output),
    });
    expect(validateEvent(out).ok).toBe(true);
  });

  it('at redacted drops the full field and fills its redacted twin through the pipeline', () => {
    const out = applyCeiling(completed, 'redacted', { redact: { home: '/home/ann' } });
    expect(out.capture).toBe('redacted');
    expect(out.data).toEqual({
      tool: { name: 'Bash', call_id: 't1' },
      status: 'success',
      result_digest: contentDigest(output),
      result_redacted: 'wrote ~/app/.env with API_KEY=[REDACTED:secret]',
    });
  });

  it('at full keeps everything verbatim and says so', () => {
    const out = applyCeiling(completed, 'full');
    expect(out.capture).toBe('full');
    expect(out.data).toEqual(completed.data);
  });

  it('at none keeps the envelope only', () => {
    const out = applyCeiling(completed, 'none');
    expect(out.capture).toBe('none');
    expect('data' in out).toBe(false);
  });

  it('keeps a digest the adapter computed itself', () => {
    const out = applyCeiling(
      draft('tool.requested', {
        tool: { name: 'Bash' },
        args: { command: 'ls' },
        args_digest: 'given',
      }),
      'metadata',
    );
    expect(out.data).toEqual({ tool: { name: 'Bash' }, args_digest: 'given' });
  });

  it('at metadata synthesizes the attention prompt and degrades labels to ids', () => {
    const request = draft(
      'attention.requested',
      {
        kind: 'permission',
        prompt: 'Allow rm -rf /home/ann/build?',
        options: [{ id: 'allow', label: 'Yes, and my email is a@b.io' }],
      },
      { subject: 'Bash' },
    );
    expect(applyCeiling(request, 'metadata').data).toEqual({
      kind: 'permission',
      prompt: 'claude-code requests permission: Bash',
      options: [{ id: 'allow', label: 'allow' }],
    });
    expect(applyCeiling(request, 'redacted', { redact: { home: '/home/ann' } }).data).toEqual({
      kind: 'permission',
      prompt: 'Allow rm -rf ~/build?',
      options: [{ id: 'allow', label: 'Yes, and my email is [REDACTED:pii]' }],
    });
  });

  it('gates form answer values exactly when the adapter knows the fields', () => {
    const fields = [
      { id: 'name', type: 'string', label: 'Name' },
      { id: 'db', type: 'select', label: 'DB', choices: [{ id: '1', label: 'PostgreSQL' }] },
    ] as const;
    const answered = draft(
      'attention.answered',
      { answer: { values: { name: 'ann@example.com', db: '1', stray: 2 } } },
      { subject: 'R1' },
    );
    expect(applyCeiling(answered, 'metadata', { fields }).data).toEqual({
      answer: { values: { db: '1' } },
    });
    expect(applyCeiling(answered, 'redacted', { fields }).data).toEqual({
      answer: { values: { name: '[REDACTED:pii]', db: '1' } },
    });
  });

  it('drops a vendor payload below full unless the adapter declares its field levels', () => {
    const vendor = draft('x.claude-code.session.config_change', {
      key: 'model',
      value: 'secret text',
    });
    expect('data' in applyCeiling(vendor, 'metadata')).toBe(false);
    const out = applyCeiling(vendor, 'metadata', {
      payloadLevels: { key: 'metadata', value: 'full' },
    });
    expect(out.data).toEqual({ key: 'model' });
  });

  it('never mutates the draft', () => {
    const before = structuredClone(completed);
    applyCeiling(completed, 'redacted');
    applyCeiling(completed, 'metadata');
    expect(completed).toEqual(before);
  });
});
