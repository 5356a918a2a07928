/**
 * A tool call that prints the daemon's own tokens (issue 8 §4): at every capture level the hook
 * path's events reach `/stream` and the history with the tokens redacted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ccPayload,
  Consumer,
  postHook,
  removeDataDir,
  startHooksDaemon,
  TestClock,
  type HooksDaemon,
} from '../hooks/hooks-harness';

let d: HooksDaemon;
beforeEach(async () => {
  d = await startHooksDaemon({ clock: new TestClock() });
});
afterEach(async () => {
  await d.close();
  removeDataDir(d.dataDir);
});

describe("the hook path never forwards the daemon's tokens", () => {
  for (const ceiling of ['redacted', 'full'] as const) {
    it(`at capture ${ceiling}`, async () => {
      const { operator, hook } = d.daemon.tokens;
      const patched = await fetch(`${d.url}/api/settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ 'capture.ceiling': ceiling }),
      });
      expect(patched.status).toBe(200);
      const consumer = await Consumer.open(d.url, operator, {}, 'full');
      const tool = {
        tool_name: 'Bash',
        tool_use_id: 'tu1',
        tool_input: { command: `echo ${operator}` },
      };
      const post = (event: string, extra: Record<string, unknown>) =>
        postHook(d.url, hook, 'claude-code', ccPayload(event, `s-${ceiling}`, extra));
      await post('SessionStart', { source: 'startup' });
      await post('PreToolUse', tool);
      await post('PostToolUse', {
        ...tool,
        tool_response: { stdout: `op=${operator} hook=${hook}` },
      });
      await consumer.event((e) => e.type === 'tool.completed');
      const text = consumer.texts.join('\n');
      expect(text).not.toContain(operator);
      expect(text).not.toContain(hook);
      consumer.close();
    });
  }
});
