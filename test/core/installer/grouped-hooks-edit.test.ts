import { describe, expect, it } from 'vitest';
import { editGroupedHooks } from '../../../main/core/installer/grouped-hooks-edit';
import { isObject } from '../../../main/core/installer/json-document';

const isOurs = (h: unknown): boolean => isObject(h) && h.command === 'ours';
const ours = { type: 'command', command: 'ours' };

function edit(
  before: string | null,
  desired: Array<[string, Record<string, unknown>]>,
): string | null {
  const result = editGroupedHooks('/settings.json', before, { desired, isOurs });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('editGroupedHooks', () => {
  it('keeps a user handler that was added into our group when removing ours', () => {
    const installed = edit('{}', [['Stop', ours]]) as string;
    const shared = JSON.parse(installed) as { hooks: { Stop: Array<{ hooks: unknown[] }> } };
    shared.hooks.Stop[0].hooks.push({ type: 'command', command: 'theirs' });
    const removed = edit(JSON.stringify(shared), []);
    expect(JSON.parse(removed as string)).toEqual({
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'theirs' }] }] },
    });
  });

  it('keeps a group that carries keys of its own even when our handler was its only one', () => {
    const text = JSON.stringify({
      hooks: { Stop: [{ matcher: 'x', note: 'mine', hooks: [ours] }] },
    });
    expect(JSON.parse(edit(text, []) as string)).toEqual({
      hooks: { Stop: [{ matcher: 'x', note: 'mine', hooks: [] }] },
    });
  });

  it('collapses duplicates of ours to one, in place of the first', () => {
    const text = JSON.stringify({
      hooks: { Stop: [{ hooks: [ours] }, { hooks: [{ command: 'theirs' }] }, { hooks: [ours] }] },
    });
    const next = { type: 'command', command: 'ours', timeout: 5 };
    expect(JSON.parse(edit(text, [['Stop', next]]) as string)).toEqual({
      hooks: { Stop: [{ hooks: [next] }, { hooks: [{ command: 'theirs' }] }] },
    });
  });

  it('leaves an absent file absent when there is nothing to add', () => {
    expect(edit(null, [])).toBeNull();
  });

  it('returns the text unchanged, byte for byte, when ours are already as desired', () => {
    const text = '{"hooks":{"Stop":[{"hooks":[{"command":"ours","type":"command"}]}]}}';
    expect(edit(text, [['Stop', ours]])).toBe(text);
  });

  it('refuses a top level that is not an object and an event that is not a list', () => {
    expect(editGroupedHooks('/s.json', '[]', { desired: [['Stop', ours]], isOurs }).ok).toBe(false);
    const odd = editGroupedHooks('/s.json', '{"hooks":{"Stop":{}}}', {
      desired: [['Stop', ours]],
      isOurs,
    });
    expect(odd.ok ? 'ok' : odd.error.code).toBe('unexpected-shape');
  });
});
