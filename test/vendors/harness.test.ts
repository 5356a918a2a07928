/**
 * The real-CLI harness, proven per pinned vendor version: each CLI runs against its model-API
 * stub with every hook moment pointed at a plain hook receiver; the test checks which moments
 * fire, what their payloads carry, and which moments' `additionalContext` reaches the next model
 * request. The expected tables below are the per-version record steering's delivery moments are
 * chosen from (shared design §5); a new vendor version that changes them fails here first.
 * Each run also writes its observations to test-results/vendor-hooks/<vendor>@<version>.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeOutcomes, probeReplier, type ProbeOutcome } from '../support/context-probe';
import { HOOK_POST_SCRIPT, HookReceiver } from '../support/hook-receiver';
import { isAnthropicAgentRequest, startAnthropicStub } from '../support/model-stubs/anthropic-stub';
import { isChatAgentRequest, startChatStub } from '../support/model-stubs/openai-chat-stub';
import {
  isResponsesAgentRequest,
  startResponsesStub,
} from '../support/model-stubs/openai-responses-stub';
import type { RecordedRequest, StubServer } from '../support/model-stubs/stub-server';
import {
  describeRun,
  makeTempHome,
  removeTempDir,
  runVendor,
  type VendorRunResult,
} from '../support/run-vendor';
import { ensureVendorCli, VENDOR_PACKAGES, type CliVendor } from '../support/vendor-clis';
import { shellQuote, supportsHttpHook, vendorHooks } from '../support/vendor-hook-config';

const PROBED = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolBatch',
  'Stop',
];
const REPORT_DIR = fileURLToPath(new URL('../../test-results/vendor-hooks', import.meta.url));

interface VendorCase {
  readonly vendor: CliVendor;
  readonly startStub: () => Promise<StubServer>;
  readonly isAgent: (r: RecordedRequest) => boolean;
  /** Moments that must fire in a prompt → one shell tool call → final text session. */
  readonly fires: readonly string[];
  /** Registered moments that must not fire in that session (vendor facts steering depends on). */
  readonly neverFires: readonly string[];
  /** Probed calls (`<moment>#<nth>`) whose context the next model request carries, exactly. */
  readonly readNext: readonly string[];
}

const CASES: readonly VendorCase[] = [
  {
    vendor: 'claude-code',
    startStub: () => startAnthropicStub(),
    isAgent: isAnthropicAgentRequest,
    fires: [
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'PostToolBatch',
      'Stop',
      'SessionEnd',
    ],
    neverFires: [],
    // Stop context makes Claude Code take one more model turn: it is read, at the price of a turn.
    readNext: [
      'SessionStart#1',
      'UserPromptSubmit#1',
      'PreToolUse#1',
      'PostToolUse#1',
      'PostToolBatch#1',
      'Stop#1',
    ],
  },
  {
    vendor: 'codex',
    startStub: () => startResponsesStub(),
    isAgent: isResponsesAgentRequest,
    fires: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
    neverFires: [],
    readNext: ['SessionStart#1', 'UserPromptSubmit#1', 'PreToolUse#1', 'PostToolUse#1'],
  },
  {
    vendor: 'qwen-code',
    startStub: () => startChatStub(),
    isAgent: isChatAgentRequest,
    // UserPromptSubmit fires again mid-turn (empty prompt) before the request that carries the tool result.
    fires: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
    // `qwen -p` never fires SessionEnd (only the interactive UI, ACP mode and /clear do), so a
    // headless session's end is invisible to hooks: steering cannot drop on it.
    neverFires: ['SessionEnd'],
    readNext: ['SessionStart#1', 'UserPromptSubmit#1', 'UserPromptSubmit#2', 'PostToolUse#1'],
  },
];

for (const c of CASES) {
  describe(`${c.vendor}@${VENDOR_PACKAGES[c.vendor].version} against its model stub`, () => {
    let stub: StubServer;
    let receiver: HookReceiver;
    let home: string;
    let result: VendorRunResult;

    beforeAll(async () => {
      await ensureVendorCli(c.vendor);
      stub = await c.startStub();
      receiver = await new HookReceiver(probeReplier(PROBED)).start();
      home = await makeTempHome(`aep-harness-${c.vendor}-`);
      const url = receiver.urlFor(c.vendor);
      // HTTP where the vendor runs it, the command script elsewhere: both transports get exercised.
      const hooks = vendorHooks(c.vendor, (moment) =>
        supportsHttpHook(c.vendor, moment)
          ? { type: 'http', url }
          : { type: 'command', command: `node ${shellQuote(HOOK_POST_SCRIPT)} ${shellQuote(url)}` },
      );
      result = await runVendor({
        vendor: c.vendor,
        prompt: 'Say hi using the shell.',
        stubUrl: stub.url,
        home,
        hooks,
      });
    });

    afterAll(async () => {
      await stub?.close();
      await receiver?.close();
      if (home) await removeTempDir(home);
    });

    it('runs the scripted session to the end: shell tool call, then final text', () => {
      expect(result.timedOut, describeRun(result)).toBe(false);
      expect(result.code, describeRun(result)).toBe(0);
      expect(result.stdout).toContain('All done.');
      const agent = stub.requests.filter(c.isAgent);
      expect(agent.length, stub.describe()).toBeGreaterThanOrEqual(2);
    });

    it('fires the session, prompt, tool and stop moments with the documented payload fields', async () => {
      // Written first, so the record exists for whoever reads a failure below.
      await writeReport(
        c.vendor,
        receiver,
        probeOutcomes(receiver.calls, stub.requests, c.isAgent),
      );
      const moments = receiver.moments();
      for (const moment of c.fires)
        expect(moments, `fired: ${moments.join(', ')}`).toContain(moment);
      for (const moment of c.neverFires) expect(moments).not.toContain(moment);
      const sessions = new Set(receiver.calls.map((call) => call.payload.session_id));
      expect(sessions.size).toBe(1);
      expect([...sessions][0]).toEqual(expect.any(String));
      for (const call of receiver.calls) expect(call.payload.hook_event_name).toBe(call.moment);
      const pre = receiver.calls.find((call) => call.moment === 'PreToolUse');
      expect(pre?.payload).toMatchObject({
        tool_use_id: expect.any(String),
        tool_name: expect.any(String),
      });
      expect(JSON.stringify(pre?.payload.tool_input)).toContain('echo hi');
      const post = receiver.calls.find((call) => call.moment === 'PostToolUse');
      expect(JSON.stringify(post?.payload.tool_response)).toContain('hi');
      const prompt = receiver.calls.find((call) => call.moment === 'UserPromptSubmit');
      expect(prompt?.payload.prompt).toContain('Say hi using the shell.');
    });

    it('carries context from exactly the expected moments into the next model request', () => {
      const outcomes = probeOutcomes(receiver.calls, stub.requests, c.isAgent);
      const read = outcomes.filter((o) => o.readNext).map((o) => o.key);
      const table = outcomes
        .map((o) => `${o.key}: ${o.readNext ? 'next' : o.readLater ? 'later' : 'never'}`)
        .join('\n');
      expect(read.sort(), table).toEqual([...c.readNext].sort());
    });
  });
}

async function writeReport(
  vendor: CliVendor,
  receiver: HookReceiver,
  outcomes: ProbeOutcome[],
): Promise<void> {
  await mkdir(REPORT_DIR, { recursive: true });
  const report = {
    vendor,
    version: VENDOR_PACKAGES[vendor].version,
    moments: receiver.moments(),
    fieldsByMoment: receiver.fieldsByMoment(),
    context: Object.fromEntries(
      outcomes.map((o) => [
        o.key,
        o.readNext ? 'next request' : o.readLater ? 'a later request' : 'never',
      ]),
    ),
    samplePayloads: Object.fromEntries(
      receiver.moments().map((m) => [m, receiver.calls.find((call) => call.moment === m)?.payload]),
    ),
  };
  await writeFile(
    join(REPORT_DIR, `${vendor}@${VENDOR_PACKAGES[vendor].version}.json`),
    `${JSON.stringify(report, null, 2)}\n`,
  );
}

describe(`codex@${VENDOR_PACKAGES.codex.version} without the hook-trust bypass`, () => {
  it('runs no untrusted hook at all (the installer and doctor must tell the user to trust them)', async () => {
    await ensureVendorCli('codex');
    const stub = await startResponsesStub();
    const receiver = await new HookReceiver().start();
    const home = await makeTempHome('aep-harness-codex-trust-');
    try {
      const command = `node ${shellQuote(HOOK_POST_SCRIPT)} ${shellQuote(receiver.urlFor('codex'))}`;
      const hooks = vendorHooks('codex', () => ({ type: 'command', command }));
      const result = await runVendor({
        vendor: 'codex',
        prompt: 'Say hi using the shell.',
        stubUrl: stub.url,
        home,
        hooks,
        codexRequireHookTrust: true,
      });
      expect(result.code, describeRun(result)).toBe(0);
      // The session really ran (both model turns), so the silence is the trust gate's doing.
      expect(
        stub.requests.filter(isResponsesAgentRequest).length,
        stub.describe(),
      ).toBeGreaterThanOrEqual(2);
      expect(receiver.calls).toEqual([]);
    } finally {
      await stub.close();
      await receiver.close();
      await removeTempDir(home);
    }
  });
});

describe(`claude-code@${VENDOR_PACKAGES['claude-code'].version} HTTP hook on SessionStart`, () => {
  it('is not run (Claude Code runs only command hooks there), while the same hook on UserPromptSubmit is', async () => {
    await ensureVendorCli('claude-code');
    const stub = await startAnthropicStub([{ text: 'All done.' }]);
    const receiver = await new HookReceiver().start();
    const home = await makeTempHome('aep-harness-cc-http-start-');
    try {
      // Written by hand: vendorHooks refuses this shape because it never runs.
      const http = { type: 'http', url: receiver.urlFor('claude-code'), timeout: 30 };
      const hooks = { SessionStart: [{ hooks: [http] }], UserPromptSubmit: [{ hooks: [http] }] };
      const result = await runVendor({
        vendor: 'claude-code',
        prompt: 'Say hi.',
        stubUrl: stub.url,
        home,
        hooks,
      });
      expect(result.code, describeRun(result)).toBe(0);
      expect(receiver.moments()).toEqual(['UserPromptSubmit']);
    } finally {
      await stub.close();
      await receiver.close();
      await removeTempDir(home);
    }
  });
});
