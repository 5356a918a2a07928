import { describe, expect, it } from 'vitest';
import { commandOrigin, instructText } from '../../../main/core/steering/instruct-command';
import { instruct } from './steering-fixture';

describe('instructText', () => {
  it('returns the text verbatim, whitespace included', () => {
    expect(instructText(instruct('codex', 's', '  keep spaces \n'), 100)).toEqual({ ok: true, value: '  keep spaces \n' });
  });

  it('refuses a missing, blank or oversize text with a reason', () => {
    expect(instructText(instruct('codex', 's', undefined), 100)).toMatchObject({ ok: false, error: { code: 'not-text' } });
    expect(instructText(instruct('codex', 's', ' \t'), 100)).toMatchObject({ ok: false, error: { code: 'empty' } });
    expect(instructText(instruct('codex', 's', 'abcd'), 3)).toMatchObject({ ok: false, error: { code: 'oversize' } });
  });
});

describe('commandOrigin', () => {
  it('reads the sender and the surface extension attribute', () => {
    expect(commandOrigin(instruct('codex', 's', 'x', { agent: 'bob', surface: 'tray' }))).toEqual({ actor: 'bob', surface: 'tray' });
  });

  it('counts an unknown or absent surface as the WebSocket binding', () => {
    expect(commandOrigin(instruct('codex', 's', 'x', { surface: 'carrier-pigeon' })).surface).toBe('ws');
    expect(commandOrigin(instruct('codex', 's', 'x', { surface: undefined })).surface).toBe('ws');
  });
});
