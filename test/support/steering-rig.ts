/**
 * The shared set-up of the real-CLI steering tests: a real companion daemon (bundled CLI, `serve`
 * on port 0, temp data directory) with steering turned on, an operator WebSocket subscribed to
 * its stream, and helpers to run one scripted CLI session whose first model response is held, so
 * an instruction can be sent while the session is provably live.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AepSocket, type AepEvent } from './aep-socket';
import { buildCompanionCli, startCompanion, type Companion, type CompanionCli } from './companion';
import type { HeldResponse, RecordedRequest, StubServer } from './model-stubs/stub-server';
import {
  describeRun,
  makeTempHome,
  removeTempDir,
  startVendor,
  type RunningVendor,
  type VendorRunResult,
} from './run-vendor';
import { ensureVendorCli, type CliVendor } from './vendor-clis';
import type { HookHandlerSpec } from './vendor-hook-config';

/** The env var the vendors interpolate into HTTP hook headers (never the operator token). */
export const HOOK_TOKEN_ENV = 'AEP_HOOK_TOKEN';

/** A daemon with steering on and an operator socket. */
export interface SteeringRig {
  readonly companion: Companion;
  readonly socket: AepSocket;
  /** An HTTP hook at the daemon's route for `vendor`, opted in, token by reference. */
  httpHook(vendor: CliVendor): HookHandlerSpec;
  /** The shim as a command hook for `vendor`, opted in. */
  shimHook(vendor: CliVendor): HookHandlerSpec;
  close(): Promise<void>;
}

/**
 * Opens a rig; `CompanionUnavailable` propagates when `serve` is not there yet. `settings` are
 * applied through PATCH /api/settings and the daemon is then restarted on the same data
 * directory, for settings read at start (e.g. the idle sweep period follows the idle expiry).
 */
export async function openSteeringRig(
  vendor: CliVendor,
  options: { settings?: Readonly<Record<string, unknown>> } = {},
): Promise<SteeringRig> {
  await ensureVendorCli(vendor);
  const cli: CompanionCli = await buildCompanionCli();
  const dataDir = await mkdtemp(join(tmpdir(), `aep-steer-${vendor}-`));
  let companion: Companion | undefined;
  try {
    companion = await startCompanion(cli, dataDir);
    await companion.api('PUT', '/api/steering', { enabled: true });
    if (options.settings) {
      await companion.api('PATCH', '/api/settings', options.settings);
      await companion.stop();
      companion = undefined;
      companion = await startCompanion(cli, dataDir);
    }
    const socket = await AepSocket.connect(companion.url, companion.tokens.operator);
    const c = companion;
    return {
      companion: c,
      socket,
      httpHook: (v) => ({
        type: 'http',
        url: c.hookUrl(v, { instruct: true }),
        headers: { Authorization: `Bearer \${${HOOK_TOKEN_ENV}}` },
        allowedEnvVars: [HOOK_TOKEN_ENV],
      }),
      shimHook: (v) => ({ type: 'command', command: c.shimCommand(v, { instruct: true }) }),
      close: async () => {
        socket.close();
        await c.stop();
        await cli.dispose();
        await removeTempDir(dataDir);
      },
    };
  } catch (error) {
    await companion?.stop();
    await cli.dispose();
    await removeTempDir(dataDir);
    throw error;
  }
}

/** One CLI session in progress, its first agent-loop model response held. */
export interface HeldSession {
  readonly running: RunningVendor;
  readonly home: string;
  /** The held agent request. */
  readonly held: RecordedRequest;
  readonly hold: HeldResponse;
  /** The AEP session id the daemon assigned (the vendor's session id). */
  readonly session: string;
  /** Waits for the CLI to end, then removes its HOME. */
  finish(): Promise<VendorRunResult>;
}

/** Starts `vendor` with `hooks`, holds its first agent request, and finds its session on the stream. */
export async function startHeldSession(
  rig: SteeringRig,
  vendor: CliVendor,
  stub: StubServer,
  isAgent: (r: RecordedRequest) => boolean,
  /** Hooks to write, or undefined to run with what the HOME already holds (e.g. what the installer wrote). */
  hooks: Record<string, unknown> | undefined,
  options: {
    home?: string;
    /** The CLI's extra environment; default: the hook token and the data directory, as a test-written config needs. */
    env?: Readonly<Record<string, string>>;
    qwenAcp?: boolean;
    afterStart?: (running: RunningVendor, cwd: string) => void;
  } = {},
): Promise<HeldSession> {
  const hold = stub.hold(isAgent);
  const fromIndex = rig.socket.events.length;
  const home = options.home ?? (await makeTempHome(`aep-steer-${vendor}-home-`));
  const running = await startVendor({
    vendor,
    prompt: 'Say hi using the shell.',
    stubUrl: stub.url,
    home,
    hooks,
    env: options.env ?? {
      [HOOK_TOKEN_ENV]: rig.companion.tokens.hook,
      AEP_COMPANION_DATA_DIR: rig.companion.dataDir,
    },
    qwenAcp: options.qwenAcp,
  });
  // An ACP agent waits for its client: the caller drives it from here.
  options.afterStart?.(running, join(home, 'work'));
  const finish = async () => {
    hold.release();
    const result = await running.done;
    await removeTempDir(home);
    return result;
  };
  try {
    const ended = running.done.then((r) => {
      throw new Error(`the CLI ended before its first model request was held:\n${describeRun(r)}`);
    });
    const held = await Promise.race([hold.reached, ended]);
    const started = await rig.socket.waitForEvent(
      (e) => e.type === 'session.started' && typeof e.session === 'string',
      `session.started from ${vendor}`,
      {
        fromIndex,
      },
    );
    return { running, home, held, hold, session: started.session as string, finish };
  } catch (error) {
    running.kill();
    await finish();
    throw error;
  }
}

/** The first agent-loop request after `after` (by arrival), if any yet. */
export function nextAgentRequest(
  stub: StubServer,
  isAgent: (r: RecordedRequest) => boolean,
  after: RecordedRequest,
): RecordedRequest | undefined {
  return stub.requests.find((r) => r.index > after.index && isAgent(r));
}

/** The audit rows of one command id (newest first as the API serves them). */
export async function auditRowsFor(
  companion: Companion,
  session: string,
  commandId: string,
): Promise<Array<{ action: string; outcome: string }>> {
  const page = await companion.api<{
    rows: Array<{ action: string; outcome: string; commandId: string | null }>;
  }>('GET', `/api/audit?session=${encodeURIComponent(session)}&limit=200`);
  return page.rows.filter((r) => r.commandId === commandId);
}

/** Whether an event is the `kind` steering event of `vendor` settling `commandId`. */
export function isInstructionEvent(
  vendor: CliVendor,
  kind: 'delivered' | 'dropped',
  commandId: string,
): (e: AepEvent) => boolean {
  return (e) => e.type === `x.${vendor}.instruction.${kind}` && e.cause === commandId;
}
