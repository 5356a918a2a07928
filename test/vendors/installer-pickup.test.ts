/**
 * The real CLIs pick up what the installer wrote, from a clean shell (issue 11). With HOME (and
 * CODEX_HOME) pointed at a temp directory, `aep-companion install --vendor <v>` with default options
 * writes the vendor's own config (user scope, or the project the CLI then runs in); the real CLI
 * runs against its model stub with the environment of a new login shell (no AEP_* variable: no
 * token, no daemon URL, no data directory), and its prompt, tool and stop hooks all reach the
 * daemon, the prompt text kept at the default capture level. The steering cases add `--instruct`
 * and prove an instruction sent while the session is live is delivered end to end; one case keeps
 * the opt-in HTTP transport, with the token exported the way its install warning says.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AepEvent } from '../support/aep-socket';
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
import { describeRun, makeTempHome, removeTempDir, runVendor } from '../support/run-vendor';
import {
  HOOK_TOKEN_ENV,
  isInstructionEvent,
  nextAgentRequest,
  startHeldSession,
  type SteeringRig,
} from '../support/steering-rig';
import { useSteeringRig } from '../support/use-steering-rig';
import { ensureVendorCli, type CliVendor } from '../support/vendor-clis';

interface VendorCase {
  readonly vendor: CliVendor;
  readonly startStub: () => Promise<StubServer>;
  readonly isAgent: (r: RecordedRequest) => boolean;
}

const VENDOR_CASES: readonly VendorCase[] = [
  {
    vendor: 'claude-code',
    startStub: () => startAnthropicStub(),
    isAgent: isAnthropicAgentRequest,
  },
  { vendor: 'codex', startStub: () => startResponsesStub(), isAgent: isResponsesAgentRequest },
  { vendor: 'qwen-code', startStub: () => startChatStub(), isAgent: isChatAgentRequest },
];

/** The environment of a new login shell: nothing of the companion's own. */
const CLEAN_SHELL: Readonly<Record<string, string>> = {};

const PROMPT = 'Say hi using the shell.';

/** Runs `aep-companion install` for a user in `home`; skips the test when the command is pending. */
async function install(
  r: SteeringRig,
  home: string,
  args: readonly string[],
): Promise<'ok' | 'pending'> {
  const userEnv = { HOME: home, CODEX_HOME: join(home, '.codex') };
  const installed = await r.companion.runCli(['install', ...args], { env: userEnv });
  if (/not available yet/.test(installed.stderr)) return 'pending';
  expect(installed.code, `${installed.stdout}\n${installed.stderr}`).toBe(0);
  expect(installed.stdout, 'a default install needs no shell-profile edit').not.toContain(
    `export ${HOOK_TOKEN_ENV}`,
  );
  return 'ok';
}

/**
 * Codex loads a project's `.codex/` layer only for a project the user trusted (its own first-run
 * dialog); the test records that answer the way Codex does, in the user's config.toml.
 */
async function trustCodexProject(home: string, project: string): Promise<void> {
  await mkdir(join(home, '.codex'), { recursive: true });
  await writeFile(
    join(home, '.codex', 'config.toml'),
    `[projects."${project}"]\ntrust_level = "trusted"\n`,
  );
}

function ofSession(session: string, type: string, extra: (e: AepEvent) => boolean = () => true) {
  return (e: AepEvent) => e.session === session && e.type === type && extra(e);
}

describe('the real CLIs pick up what the installer wrote', () => {
  const h = useSteeringRig('claude-code');

  for (const c of VENDOR_CASES) {
    for (const scope of ['user', 'project'] as const) {
      it(`${c.vendor} (${scope} scope, default install, clean shell): prompt, tool and stop hooks all arrive`, async (ctx) => {
        const r = h.rig(ctx);
        await ensureVendorCli(c.vendor);
        const home = await makeTempHome(`aep-install-${c.vendor}-${scope}-`);
        try {
          const project = join(home, 'work');
          const args = ['--vendor', c.vendor, '--scope', scope];
          if (scope === 'project') args.push('--project', project);
          if ((await install(r, home, args)) === 'pending')
            return ctx.skip('installer CLI pending');
          if (c.vendor === 'codex' && scope === 'project') await trustCodexProject(home, project);

          const stub = h.track(await c.startStub());
          const fromIndex = r.socket.events.length;
          const result = await runVendor({
            vendor: c.vendor,
            prompt: PROMPT,
            stubUrl: stub.url,
            home,
            cwd: project,
            env: CLEAN_SHELL,
          });
          expect(result.code, describeRun(result)).toBe(0);
          expect(stub.requests.some(c.isAgent), 'the CLI reached its model stub').toBe(true);

          const started = await r.socket.waitForEvent(
            (e) => e.type === 'session.started' && typeof e.session === 'string',
            `session.started from ${c.vendor}`,
            { fromIndex },
          );
          const session = started.session as string;
          const seen = { fromIndex, timeoutMs: 30_000 };
          const prompt = await r.socket.waitForEvent(
            ofSession(session, 'run.started', (e) =>
              JSON.stringify(e.data ?? {}).includes('Say hi'),
            ),
            'run.started carrying the prompt (UserPromptSubmit)',
            seen,
          );
          expect(prompt.capture).toBe('redacted');
          await r.socket.waitForEvent(
            ofSession(session, 'tool.requested'),
            'tool.requested (PreToolUse)',
            seen,
          );
          await r.socket.waitForEvent(
            ofSession(session, 'tool.completed'),
            'tool.completed (PostToolUse)',
            seen,
          );
          await r.socket.waitForEvent(
            ofSession(session, 'run.finished'),
            'run.finished (Stop)',
            seen,
          );
        } finally {
          await removeTempDir(home);
        }
      });
    }
  }

  const STEERING: ReadonlyArray<VendorCase & { transport: 'http' | null }> = [
    ...VENDOR_CASES.map((c) => ({ ...c, transport: null })),
    { ...VENDOR_CASES[0], transport: 'http' as const },
  ];
  for (const c of STEERING) {
    const label = `${c.vendor} (${c.transport ?? 'default'} transport)`;
    it(`${label}: an instruction is delivered end to end`, async (ctx) => {
      const r = h.rig(ctx);
      await ensureVendorCli(c.vendor);
      const home = await makeTempHome(`aep-install-${c.vendor}-`);
      const args = ['--vendor', c.vendor, '--scope', 'user', '--instruct'];
      if (c.transport) args.push('--transport', c.transport);
      const userEnv = { HOME: home, CODEX_HOME: join(home, '.codex') };
      const installed = await r.companion.runCli(['install', ...args], { env: userEnv });
      if (/not available yet/.test(installed.stderr)) {
        await removeTempDir(home);
        return ctx.skip(`installer CLI pending: ${installed.stderr.trim()}`);
      }
      expect(installed.code, `${installed.stdout}\n${installed.stderr}`).toBe(0);

      const stub = h.track(await c.startStub());
      // The opt-in HTTP transport needs the token exported, as its install warning says; the default needs nothing.
      const env: Record<string, string> =
        c.transport === 'http' ? { [HOOK_TOKEN_ENV]: r.companion.tokens.hook } : { ...CLEAN_SHELL };
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
