/**
 * The agent catalogue: the only agents the companion launches, one entry each (vendor facts stay
 * here). Detection uses the installer host's PATH, the way the installer finds CLIs; a command
 * override from settings (`agents.<id>.command`) replaces the default argv; nothing from the API
 * ever names a command.
 */
import type { AgentId, AgentProtocol } from '../../../common/agents';
import type { InstallerHost } from '../installer/installer-env';
import { findOnPath } from '../installer/cli-probe';

/** A bridge package the companion runs with its own Node (fetched into the data dir on demand). */
export interface BridgeSpec {
  readonly package: string;
  readonly version: string;
  /** The entry script inside the package. */
  readonly entry: string;
}

/** One catalogue entry. */
export interface AgentSpec {
  readonly id: AgentId;
  readonly name: string;
  readonly protocol: AgentProtocol;
  /** The vendor CLI names looked up on PATH. */
  readonly cli: readonly string[];
  /** Arguments after the CLI (ACP or app-server mode). */
  readonly args: readonly string[];
  readonly bridge?: BridgeSpec;
  readonly howToGet: string;
  /** Extra environment for the agent given the CLI found on PATH (e.g. the bridge runs the user's `claude`). */
  readonly env?: (cliPath: string | null) => Readonly<Record<string, string>>;
  /**
   * The ACP `authenticate` method to call before `session/new`, chosen from the credentials the
   * user's environment holds (never stored by the companion); null: the agent's own login applies.
   */
  readonly authMethod?: (env: Readonly<Record<string, string | undefined>>) => string | null;
}

/** The pinned Claude Code ACP bridge. */
export const CLAUDE_BRIDGE: BridgeSpec = { package: '@agentclientprotocol/claude-agent-acp', version: '0.101.0', entry: 'dist/index.js' };

export const AGENT_CATALOGUE: Readonly<Record<AgentId, AgentSpec>> = {
  'claude-code': {
    id: 'claude-code',
    name: 'Claude Code',
    protocol: 'acp',
    cli: ['claude'],
    args: [],
    bridge: CLAUDE_BRIDGE,
    howToGet: `fetched on first launch (${CLAUDE_BRIDGE.package}@${CLAUDE_BRIDGE.version}); uses your own \`claude\` when installed (npm install -g @anthropic-ai/claude-code)`,
    env: (cliPath): Record<string, string> => (cliPath ? { CLAUDE_CODE_EXECUTABLE: cliPath } : {}),
  },
  codex: { id: 'codex', name: 'Codex', protocol: 'codex-app-server', cli: ['codex'], args: ['app-server'], howToGet: 'npm install -g @openai/codex' },
  'qwen-code': { id: 'qwen-code', name: 'Qwen Code', protocol: 'acp', cli: ['qwen'], args: ['--acp'], howToGet: 'npm install -g @qwen-code/qwen-code' },
  // `--acp` since 0.61 (`--experimental-acp` is its deprecated alias: override the command for older CLIs).
  'gemini-cli': {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    protocol: 'acp',
    cli: ['gemini'],
    args: ['--acp'],
    howToGet: 'npm install -g @google/gemini-cli',
    authMethod: (env) => (env['GEMINI_API_KEY'] ? 'gemini-api-key' : env['GOOGLE_API_KEY'] && env['GOOGLE_GENAI_USE_VERTEXAI'] ? 'vertex-ai' : null),
  },
};

/** Where things are on this machine, for resolving an agent's command. */
export interface ResolveEnv {
  readonly host: InstallerHost;
  /** The bridge entry script when fetched, else null. */
  readonly bridgeEntry: (bridge: BridgeSpec) => string | null;
  /** The settings override (argv) or null. */
  readonly override: readonly string[] | null;
}

/** How an agent would be started now. */
export interface ResolvedAgent {
  readonly spec: AgentSpec;
  /** The argv, or null when the agent is missing (or its bridge is not fetched yet). */
  readonly command: readonly string[] | null;
  readonly overridden: boolean;
  readonly cliPath: string | null;
  readonly env: Readonly<Record<string, string>>;
  /** True when launching first needs the bridge fetched. */
  readonly needsBridge: boolean;
}

/** The Node the bridge runs on: the host's runtime (Electron as Node), else `node` from PATH. */
function nodeCommand(host: InstallerHost): { argv0: string; env: Record<string, string> } {
  if (host.runtime) return { argv0: host.runtime.path, env: host.runtime.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
  return { argv0: 'node', env: {} };
}

/** Resolves one agent's command against the machine. */
export async function resolveAgent(spec: AgentSpec, env: ResolveEnv): Promise<ResolvedAgent> {
  const cliPath = await findOnPath(spec.cli, { ...env.host, dataDir: '', daemonUrl: '' });
  const extra = spec.env?.(cliPath) ?? {};
  if (env.override) return { spec, command: [...env.override], overridden: true, cliPath, env: extra, needsBridge: false };
  if (spec.bridge) {
    const entry = env.bridgeEntry(spec.bridge);
    const node = nodeCommand(env.host);
    return { spec, command: entry ? [node.argv0, entry] : null, overridden: false, cliPath, env: { ...node.env, ...extra }, needsBridge: entry === null };
  }
  return { spec, command: cliPath ? [cliPath, ...spec.args] : null, overridden: false, cliPath, env: extra, needsBridge: false };
}
