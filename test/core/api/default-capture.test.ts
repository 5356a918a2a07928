/**
 * The recommended capture level is the default (issue 11): a daemon nobody configured (the wizard
 * skipped) keeps the agent's prompt text, redacted, instead of "not captured" on every row.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../common/settings';
import { FEATURES } from '../../../main/core/features';
import { http, replaySession, startTestDaemon, type TestDaemon } from '../relay/harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

describe('default capture level', () => {
  it('is redacted: a skipped wizard still shows the prompt, with secrets scrubbed', async () => {
    expect(DEFAULT_SETTINGS['capture.ceiling']).toBe('redacted');
    d = await startTestDaemon({ baseFeatures: FEATURES });
    const skipped = await http(d.url, {
      method: 'PATCH',
      path: '/api/settings',
      headers: { Authorization: `Bearer ${d.tokens.operator}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ 'setup.skippedAt': new Date().toISOString() }),
    });
    expect(skipped.status).toBe(200);
    expect((skipped.json as Record<string, unknown>)['capture.ceiling']).toBe('redacted');
    const hook = (payload: Record<string, unknown>) =>
      http(d.url, {
        method: 'POST',
        path: '/hooks/claude-code',
        headers: { Authorization: `Bearer ${d.tokens.hook}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ session_id: 'default-capture', cwd: '/tmp', ...payload }),
      });
    expect((await hook({ hook_event_name: 'SessionStart', source: 'startup' })).status).toBe(200);
    const secret = 'sk-ant-api03-' + 'x'.repeat(40);
    const prompt = await hook({
      hook_event_name: 'UserPromptSubmit',
      prompt: `List the files, key ${secret}`,
    });
    expect(prompt.status).toBe(200);
    const events = await replaySession(d.url, d.tokens.operator, 'default-capture');
    const run = events.find((e) => e.type === 'run.started');
    expect(run?.capture).toBe('redacted');
    const text = JSON.stringify(run?.data);
    expect(text).toContain('List the files');
    expect(text).not.toContain(secret);
  });
});
