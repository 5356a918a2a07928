/**
 * The status bar's "Last hook" per vendor counts agents' hooks only: doctor's synthetic hook (every
 * vendor's shape, on the direct lane and through node:http) answers but leaves it untouched.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VENDORS } from '../../../common/vendors';
import { isSyntheticHook, syntheticPayload } from '../../../main/core/installer/synthetic-hook';
import { ccPayload, postHook, removeDataDir, startHooksDaemon, type HooksDaemon } from './hooks-harness';

let h: HooksDaemon | undefined;
afterEach(async () => {
  if (!h) return;
  await h.close();
  removeDataDir(h.dataDir);
  h = undefined;
});

async function lastHooks(d: HooksDaemon): Promise<Record<string, string>> {
  const operator = readFileSync(join(d.dataDir, 'operator-token'), 'utf8').trim();
  const r = await fetch(`${d.url}/api/status`, { headers: { authorization: `Bearer ${operator}` } });
  return ((await r.json()) as { lastHook: Record<string, string> }).lastHook;
}

describe('last hook', () => {
  it('marks every vendor shape of the synthetic hook, and nothing else', () => {
    for (const vendor of VENDORS) expect(isSyntheticHook(syntheticPayload(vendor, '/p'))).toBe(true);
    expect(isSyntheticHook(ccPayload('PreCompact', 'a-real-session'))).toBe(false);
    expect(isSyntheticHook(null)).toBe(false);
    expect(isSyntheticHook('aep-companion-doctor')).toBe(false);
  });

  it('ignores doctor hooks on both lanes and counts an agent hook', async () => {
    h = await startHooksDaemon();
    const hook = readFileSync(join(h.dataDir, 'hook-token'), 'utf8').trim();
    for (const chunked of [false, true]) {
      const answer = await postHook(h.url, hook, 'claude-code', syntheticPayload('claude-code', '/p'), { chunked });
      expect(answer.status).toBe(200);
    }
    expect(await lastHooks(h)).toEqual({});
    expect((await postHook(h.url, hook, 'claude-code', ccPayload('UserPromptSubmit', 's-1', { prompt: 'hi' }))).status).toBe(200);
    expect(Object.keys(await lastHooks(h))).toEqual(['claude-code']);
  });
});
