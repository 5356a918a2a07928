/**
 * Runs one real vendor CLI non-interactively against a model-API stub, in a temp HOME with the
 * vendor's config folders pointed into it, as docs/ARCHITECTURE.md (shared design §5) describes:
 * - Claude Code: `claude -p … --allowedTools Bash [--settings FILE]`, ANTHROPIC_BASE_URL at the stub;
 * - Codex: `codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox
 *   --dangerously-bypass-hook-trust …`, CODEX_HOME/config.toml naming the stub as a custom
 *   provider (`wire_api = "responses"`), hooks in CODEX_HOME/hooks.json;
 * - Qwen Code: `qwen -p … --yolo`, OPENAI_BASE_URL at the stub, hooks in $HOME/.qwen/settings.json.
 * Bounded: a hard timeout kills the CLI's whole process group, and the group is reaped on exit too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureVendorCli, type CliVendor } from './vendor-clis';

/** How to run one CLI. */
export interface VendorRunOptions {
  readonly vendor: CliVendor;
  /** The user prompt, passed on the command line. */
  readonly prompt: string;
  /** Base URL of the model-API stub (no trailing slash, no /v1). */
  readonly stubUrl: string;
  /** The temp HOME (see `makeTempHome`); config folders live inside it. */
  readonly home: string;
  /** Working directory; default `<home>/work`. */
  readonly cwd?: string;
  /**
   * A vendor-format `hooks` object (see vendor-hook-config.ts) the harness writes to the vendor's
   * place: a `--settings` file for Claude Code, CODEX_HOME/hooks.json, ~/.qwen/settings.json
   * (merged into what is there). Omit it to run with whatever is already configured in the
   * HOME, e.g. what the installer wrote.
   */
  readonly hooks?: Record<string, unknown>;
  /** Extra environment for the CLI (and so for its command hooks). */
  readonly env?: Readonly<Record<string, string>>;
  /** Hard limit; the CLI's process group is killed after it. Default 180 s. */
  readonly timeoutMs?: number;
  /** Codex only: run without `--dangerously-bypass-hook-trust` (hooks then need trusting first). */
  readonly codexRequireHookTrust?: boolean;
  /**
   * Qwen Code only: run as an ACP agent (`qwen --acp --yolo`) with stdin/stdout as the JSON-RPC
   * channel (see acp-client.ts) instead of `-p`; `prompt` is then sent by the caller. This is the
   * headless mode that fires SessionEnd (when stdin closes); `-p` never does.
   */
  readonly qwenAcp?: boolean;
}

/** What a finished run left behind. */
export interface VendorRunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** The command line, for diagnostics. */
  readonly argv: readonly string[];
}

/** A CLI that is running. */
export interface RunningVendor {
  readonly child: ChildProcess;
  /** Settles when the CLI has exited and its process group is reaped. */
  readonly done: Promise<VendorRunResult>;
  /** Kills the whole process group now. */
  kill(): void;
}

/** Model name the stubs are configured with (Codex and Qwen need one named). */
export const STUB_MODEL = 'stub-model';

const MAX_OUTPUT_CHARS = 1_000_000;

/** Creates a fresh temp HOME with a `work` folder inside. */
export async function makeTempHome(prefix = 'aep-vendor-'): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(home, 'work'), { recursive: true });
  return home;
}

/** Removes a temp folder made by `makeTempHome` (or any folder), ignoring absence. */
export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** The vendor's config folder inside `home` (where an installer would write). */
export function vendorConfigDir(vendor: CliVendor, home: string): string {
  return join(home, vendor === 'claude-code' ? '.claude' : vendor === 'codex' ? '.codex' : '.qwen');
}

/** Starts the CLI; installs it first when needed. */
export async function startVendor(options: VendorRunOptions): Promise<RunningVendor> {
  const cli = await ensureVendorCli(options.vendor);
  const cwd = options.cwd ?? join(options.home, 'work');
  await mkdir(cwd, { recursive: true });
  const args = await prepare(options);
  const env = baseEnv(options);
  const stdin = options.qwenAcp ? 'pipe' : 'ignore';
  const child = spawn(cli.bin, args, { cwd, env, stdio: [stdin, 'pipe', 'pipe'], detached: true });
  const argv = [cli.bin, ...args];
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout = cap(stdout + chunk.toString('utf8'))));
  child.stderr?.on('data', (chunk: Buffer) => (stderr = cap(stderr + chunk.toString('utf8'))));
  let timedOut = false;
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, options.timeoutMs ?? 180_000);
  const done = new Promise<VendorRunResult>((resolve) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({
        code: -1,
        signal: null,
        timedOut,
        stdout,
        stderr: `${stderr}\nspawn failed: ${String(error)}`,
        argv,
      });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Hook commands or shells the CLI left behind share its process group.
      killGroup();
      resolve({ code, signal, timedOut, stdout, stderr, argv });
    });
  });
  return { child, done, kill: killGroup };
}

/** Runs the CLI to completion (or the hard timeout). */
export async function runVendor(options: VendorRunOptions): Promise<VendorRunResult> {
  return (await startVendor(options)).done;
}

/** One paragraph describing a run, for assertion messages. */
export function describeRun(result: VendorRunResult): string {
  const status = result.timedOut ? 'timed out (killed)' : `exit ${result.code ?? result.signal}`;
  return `${result.argv.join(' ')}\n${status}\n--- stdout ---\n${result.stdout.slice(-4000)}\n--- stderr ---\n${result.stderr.slice(-6000)}`;
}

function cap(text: string): string {
  return text.length > MAX_OUTPUT_CHARS ? text.slice(-MAX_OUTPUT_CHARS / 2) : text;
}

/** A clean environment: nothing of the caller's vendor credentials or config relocations leaks in. */
function baseEnv(options: VendorRunOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    // The CLIs' JS entry points and the command hooks need the same node as the tests.
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: options.home,
    USER: process.env.USER ?? 'tester',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: tmpdir(),
    SHELL: '/bin/bash',
  };
  if (options.vendor === 'claude-code') {
    Object.assign(env, {
      ANTHROPIC_BASE_URL: options.stubUrl,
      ANTHROPIC_API_KEY: 'sk-ant-stub',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    // Claude Code refuses some permission flags as root unless told it runs in a sandbox.
    if (process.getuid?.() === 0) env.IS_SANDBOX = '1';
  } else if (options.vendor === 'codex') {
    Object.assign(env, {
      CODEX_HOME: vendorConfigDir('codex', options.home),
      AEP_STUB_API_KEY: 'sk-stub',
    });
  } else {
    Object.assign(env, {
      OPENAI_BASE_URL: `${options.stubUrl}/v1`,
      OPENAI_API_KEY: 'sk-stub',
      OPENAI_MODEL: STUB_MODEL,
      QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
    });
  }
  return { ...env, ...options.env };
}

/** Writes the vendor's provider and hook configuration; returns the CLI arguments. */
async function prepare(options: VendorRunOptions): Promise<string[]> {
  const configDir = vendorConfigDir(options.vendor, options.home);
  await mkdir(configDir, { recursive: true });
  if (options.vendor === 'claude-code') {
    const args = ['-p', options.prompt, '--allowedTools', 'Bash'];
    if (options.hooks) {
      const file = join(options.home, 'aep-harness-settings.json');
      await writeFile(file, JSON.stringify({ hooks: options.hooks }, null, 2));
      args.push('--settings', file);
    }
    return args;
  }
  if (options.vendor === 'codex') {
    await writeCodexConfig(configDir, options.stubUrl);
    if (options.hooks)
      await writeFile(
        join(configDir, 'hooks.json'),
        JSON.stringify({ hooks: options.hooks }, null, 2),
      );
    const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'];
    if (!options.codexRequireHookTrust) args.push('--dangerously-bypass-hook-trust');
    args.push(options.prompt);
    return args;
  }
  // Usage statistics would resolve a remote host first; offline that costs ~30 s per start and exit.
  const quiet = { privacy: { usageStatisticsEnabled: false } };
  await mergeJson(
    join(configDir, 'settings.json'),
    options.hooks ? { ...quiet, hooks: options.hooks } : quiet,
  );
  return options.qwenAcp ? ['--acp', '--yolo'] : ['-p', options.prompt, '--yolo'];
}

/** Names the stub as Codex's provider, keeping whatever else config.toml holds (e.g. hooks an installer wrote). */
async function writeCodexConfig(configDir: string, stubUrl: string): Promise<void> {
  const file = join(configDir, 'config.toml');
  const existing = existsSync(file) ? await readFile(file, 'utf8') : '';
  // A previous run in the same HOME may have named another stub: drop our earlier blocks.
  const own = new RegExp(`${HARNESS_BEGIN}[\\s\\S]*?${HARNESS_END}\\n?`, 'g');
  const user = existing.replace(own, '');
  // Top-level keys must precede every table, so they go first; the provider table goes last.
  const top = [
    HARNESS_BEGIN,
    `model = "${STUB_MODEL}"`,
    'model_provider = "aep-stub"',
    HARNESS_END,
    '',
  ].join('\n');
  const provider = [
    HARNESS_BEGIN,
    '[model_providers.aep-stub]',
    'name = "aep-stub"',
    `base_url = "${stubUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "AEP_STUB_API_KEY"',
    HARNESS_END,
    '',
  ].join('\n');
  await writeFile(file, `${top}${user}${user.endsWith('\n') || !user ? '' : '\n'}${provider}`);
}

const HARNESS_BEGIN = '# >>> aep-harness model provider';
const HARNESS_END = '# <<< aep-harness model provider';

async function mergeJson(file: string, patch: Record<string, unknown>): Promise<void> {
  const existing = existsSync(file)
    ? (JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>)
    : {};
  await writeFile(file, JSON.stringify({ ...existing, ...patch }, null, 2));
}
