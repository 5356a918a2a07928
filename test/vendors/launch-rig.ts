/**
 * Real agents launched by a real daemon (in process) against the local model-API stubs: a temp
 * HOME, the pinned CLI on the daemon's PATH (so the catalogue's detection finds it), the stub's
 * address and a fake key in the environment the agent inherits, and an operator consumer on
 * /socket. The Claude Code bridge is fetched by the product's own on-demand path into a data dir
 * whose `agents/` folder is cached in `.vendor-cache/agent-bridges`.
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { homedir, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from '../core/launched/agents-harness';
import { makeTempHome, removeTempDir, STUB_MODEL } from '../support/run-vendor';
import { ensureVendorCli, type CliVendor } from '../support/vendor-clis';

/** The agents the launch tests drive. */
export type LaunchVendor = CliVendor | 'gemini-cli';
import type { StubServer } from '../support/model-stubs/stub-server';

const BRIDGES = fileURLToPath(new URL('../../.vendor-cache/agent-bridges', import.meta.url));

export interface LaunchRig {
  readonly d: AgentsDaemon;
  readonly c: Consumer;
  readonly home: string;
  readonly cwd: string;
  close(): Promise<void>;
}

/**
 * What the product's on-demand bridge fetch (npm, run with the agent's environment) needs to reach
 * the registry although HOME is a temp folder: the caller's npm config file (registry, cafile) and
 * TLS trust variables. No credentials of a model account are among them.
 */
function npmAccess(): Record<string, string> {
  const out: Record<string, string> = {};
  const userconfig = process.env.npm_config_userconfig ?? join(homedir(), '.npmrc');
  if (existsSync(userconfig)) out.npm_config_userconfig = userconfig;
  for (const key of ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'npm_config_cafile', 'npm_config_registry', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY']) {
    const value = process.env[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** The environment the launched agent inherits (no credentials of the caller leak in). */
function agentEnv(vendor: LaunchVendor, home: string, stubUrl: string, binDir: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${binDir}:${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    USER: process.env.USER ?? 'tester',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: tmpdir(),
    SHELL: '/bin/bash',
    ...npmAccess(),
  };
  if (vendor === 'claude-code') {
    Object.assign(env, {
      ANTHROPIC_BASE_URL: stubUrl,
      ANTHROPIC_API_KEY: 'sk-ant-stub',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    if (process.getuid?.() === 0) env.IS_SANDBOX = '1';
  } else if (vendor === 'codex') {
    Object.assign(env, { CODEX_HOME: join(home, '.codex'), AEP_STUB_API_KEY: 'sk-stub' });
  } else if (vendor === 'gemini-cli') {
    Object.assign(env, { GEMINI_API_KEY: 'stub-key', GOOGLE_GEMINI_BASE_URL: stubUrl, GEMINI_CLI_NO_RELAUNCH: 'true' });
  } else {
    Object.assign(env, { OPENAI_BASE_URL: `${stubUrl}/v1`, OPENAI_API_KEY: 'sk-stub', OPENAI_MODEL: STUB_MODEL, QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' });
  }
  return env;
}

/** Vendor configuration in the temp HOME (provider for Codex, quiet statistics and yolo-free defaults for Qwen). */
async function configure(vendor: LaunchVendor, home: string, stubUrl: string, claudeSettings: Record<string, unknown>): Promise<void> {
  if (vendor === 'claude-code') {
    mkdirSync(join(home, '.claude'), { recursive: true });
    await writeFile(join(home, '.claude', 'settings.json'), JSON.stringify(claudeSettings));
  } else if (vendor === 'codex') {
    mkdirSync(join(home, '.codex'), { recursive: true });
    await writeFile(
      join(home, '.codex', 'config.toml'),
      [`model = "${STUB_MODEL}"`, 'model_provider = "aep-stub"', 'approval_policy = "never"', 'sandbox_mode = "danger-full-access"', '', '[model_providers.aep-stub]', 'name = "aep-stub"', `base_url = "${stubUrl}/v1"`, 'wire_api = "responses"', 'env_key = "AEP_STUB_API_KEY"', ''].join('\n'),
    );
  } else if (vendor === 'gemini-cli') {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
  } else {
    mkdirSync(join(home, '.qwen'), { recursive: true });
    await writeFile(join(home, '.qwen', 'settings.json'), JSON.stringify({ privacy: { usageStatisticsEnabled: false }, tools: { approvalMode: 'yolo' } }));
  }
}

/** Opens the rig for one vendor against `stub`. */
export async function openLaunchRig(vendor: LaunchVendor, stub: StubServer, claudeSettings: Record<string, unknown> = {}): Promise<LaunchRig> {
  const cli = await ensureVendorCli(vendor);
  const home = await makeTempHome('aep-launch-');
  const cwd = join(home, 'work');
  await configure(vendor, home, stub.url, claudeSettings);
  const env = agentEnv(vendor, home, stub.url, dirname(cli.bin));
  const dataDir = join(home, 'companion', 'data');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(BRIDGES, { recursive: true });
  if (!existsSync(join(dataDir, 'agents'))) symlinkSync(BRIDGES, join(dataDir, 'agents'));
  const d = await startAgentsDaemon({ requestTimeoutMs: 120_000 }, dataDir, { home, path: env.PATH, processEnv: env, runtime: { path: process.execPath, electron: false } });
  d.daemon.context.settings.set({ 'features.steering': true });
  const c = await Consumer.connect(d.url, d.daemon.tokens.operator);
  return {
    d,
    c,
    home,
    cwd,
    close: async () => {
      c.close();
      await d.close();
      removeAgentsDir(dataDir);
      await removeTempDir(home);
    },
  };
}

/** The events that end a run. */
export const TERMINAL = ['run.finished', 'run.failed', 'run.cancelled'];

/** The rigs (with their stubs) opened by `openTestRig` or `openSteerRig` that are still open. */
const testRigs: { rig: LaunchRig; stub: StubServer }[] = [];

/**
 * A rig for one test: the rig, then its stub, are closed after the test by `closeRigsAfterEach`
 * (a failed open closes the stub).
 */
export async function openTestRig(vendor: LaunchVendor, stub: StubServer, claudeSettings: Record<string, unknown> = {}): Promise<LaunchRig> {
  let rig: LaunchRig;
  try {
    rig = await openLaunchRig(vendor, stub, claudeSettings);
  } catch (error) {
    await stub.close();
    throw error;
  }
  testRigs.push({ rig, stub });
  return rig;
}

/** A test rig (`openTestRig`) with mid-turn steering on (`features.midTurnSteering`), the start of every steer test. */
export async function openSteerRig(vendor: LaunchVendor, stub: StubServer, claudeSettings: Record<string, unknown> = {}): Promise<LaunchRig> {
  const rig = await openTestRig(vendor, stub, claudeSettings);
  rig.d.daemon.context.settings.set({ 'features.midTurnSteering': true });
  return rig;
}

/** Registers, for the calling test file, the closing of every test rig and its stub after each test. */
export function closeRigsAfterEach(): void {
  afterEach(async () => {
    for (const { rig, stub } of testRigs.splice(0)) {
      await rig.close();
      await stub.close();
    }
  });
}

/** Launches `agent` in the rig's working directory with a first prompt (the launch must succeed); returns the session id. */
export async function launchWithPrompt(rig: LaunchRig, agent: LaunchVendor, prompt: string): Promise<string> {
  const res = await rig.d.api<Record<string, unknown>>('POST', '/api/launch', { agent, cwd: rig.cwd, prompt });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return String(res.json.session);
}

/** The `steer` block of a launched session as GET /api/launched lists it. */
export async function launchedSteer(rig: LaunchRig, session: string): Promise<unknown> {
  const launched = await rig.d.api<Record<string, unknown>[]>('GET', '/api/launched');
  return launched.json.find((s) => s.session === session)?.steer;
}
