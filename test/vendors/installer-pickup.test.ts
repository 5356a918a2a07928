/**
 * The real CLIs pick up what the installer wrote: with HOME (and CODEX_HOME) pointed at a temp
 * directory, `aep-companion install --vendor <v> --scope user --instruct` writes the vendor's own
 * config, the real CLI runs against its model stub with nothing else configured, its hooks reach
 * the daemon, and an instruction sent while the session is live is delivered end to end.
 * The only extra environment is what the installer tells the user to set (the hook token for
 * HTTP hooks); the command transport's launcher must find the daemon and token by itself.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAnthropicAgentRequest, startAnthropicStub } from '../support/model-stubs/anthropic-stub';
import { isChatAgentRequest, startChatStub } from '../support/model-stubs/openai-chat-stub';
import {
  isResponsesAgentRequest,
  startResponsesStub,
} from '../support/model-stubs/openai-responses-stub';
import {
  requestContains,
  type RecordedRequest,
  type StubServer,
} from '../support/model-stubs/stub-server';
import { describeRun, makeTempHome, removeTempDir } from '../support/run-vendor';
import {
  HOOK_TOKEN_ENV,
  isInstructionEvent,
  nextAgentRequest,
  startHeldSession,
} from '../support/steering-rig';
import { useSteeringRig } from '../support/use-steering-rig';
import { ensureVendorCli, type CliVendor } from '../support/vendor-clis';

interface PickupCase {
  readonly vendor: CliVendor;
  readonly transport: 'http' | 'command' | null;
  readonly startStub: () => Promise<StubServer>;
  readonly isAgent: (r: RecordedRequest) => boolean;
}

const CASES: readonly PickupCase[] = [
  {
    vendor: 'claude-code',
    transport: null,
    startStub: () => startAnthropicStub(),
    isAgent: isAnthropicAgentRequest,
  },
  {
    vendor: 'claude-code',
    transport: 'command',
    startStub: () => startAnthropicStub(),
    isAgent: isAnthropicAgentRequest,
  },
  {
    vendor: 'codex',
    transport: null,
    startStub: () => startResponsesStub(),
    isAgent: isResponsesAgentRequest,
  },
  {
    vendor: 'qwen-code',
    transport: null,
    startStub: () => startChatStub(),
    isAgent: isChatAgentRequest,
  },
];

describe('the real CLIs pick up what the installer wrote', () => {
  const h = useSteeringRig('claude-code');

  for (const c of CASES) {
    const label = `${c.vendor} (${c.transport ?? 'default'} transport)`;
    it(`${label}: hooks reach the daemon and an instruction is delivered`, async (ctx) => {
      const r = h.rig(ctx);
      await ensureVendorCli(c.vendor);
      const home = await makeTempHome(`aep-install-${c.vendor}-`);
      const userEnv = { HOME: home, CODEX_HOME: join(home, '.codex') };
      const args = [
        'install',
        '--vendor',
        c.vendor,
        '--scope',
        'user',
        '--instruct',
        ...(c.transport ? ['--transport', c.transport] : []),
      ];
      const installed = await r.companion.runCli(args, { env: userEnv });
      if (/not available yet/.test(installed.stderr)) {
        await removeTempDir(home);
        return ctx.skip(`installer CLI pending: ${installed.stderr.trim()}`);
      }
      expect(installed.code, `${installed.stdout}\n${installed.stderr}`).toBe(0);

      const stub = h.track(await c.startStub());
      // HTTP hooks name the token variable; the user exports it as the installer says. Commands need nothing.
      const env: Record<string, string> =
        c.vendor === 'codex' || c.transport === 'command'
          ? {}
          : { [HOOK_TOKEN_ENV]: r.companion.tokens.hook };
      const live = await startHeldSession(r, c.vendor, stub, c.isAgent, undefined, { home, env });
      const text = `Operator note ${randomUUID()}: keep answers short.`;
      const { id, outcome } = await r.socket.instruct(c.vendor, live.session, text);
      expect(outcome.kind, JSON.stringify(outcome)).toBe('accepted');
      live.hold.release();
      const carrying = await stub.waitForRequest((q) => c.isAgent(q) && requestContains(q, text), {
        fromIndex: live.held.index + 1,
      });
      expect(nextAgentRequest(stub, c.isAgent, live.held)?.index).toBe(carrying.index);
      await r.socket.waitForEvent(
        isInstructionEvent(c.vendor, 'delivered', id),
        'instruction.delivered',
      );
      const result = await live.finish();
      expect(result.code, describeRun(result)).toBe(0);
    });
  }
});
