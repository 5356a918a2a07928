/**
 * Spawns an agent with the daemon's environment (passed in: the core never reads process.env),
 * stdio piped, in its own process group so ending it also ends what it started (the Claude bridge
 * runs `claude` as a child). stderr goes to the log line by line and is never parsed; ending is
 * close stdin → SIGTERM → SIGKILL with a bound between each step.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Logger } from '../logger';
import type { AgentExit } from './driver';

/** A spawned agent. */
export interface AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number | null;
  /** Resolves once with the exit (also when the spawn failed). */
  readonly exited: Promise<AgentExit>;
  readonly hasExited: () => boolean;
  /** close stdin, SIGTERM, SIGKILL (to the group), each after `boundMs`; resolves on exit. */
  end(boundMs: number): Promise<AgentExit>;
}

/** Spawn parameters. */
export interface SpawnSpec {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
}

const STDERR_LINE_MAX = 2_000;

/** Starts the agent. A spawn failure (missing executable) surfaces as an exit with the reason. */
export function spawnAgent(spec: SpawnSpec): AgentProcess {
  const [file, ...args] = spec.command;
  const child = spawn(file, args, {
    cwd: spec.cwd,
    env: spec.env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
  let exit: AgentExit | null = null;
  let resolveExit: (e: AgentExit) => void = () => undefined;
  const exited = new Promise<AgentExit>((resolve) => (resolveExit = resolve));
  const finish = (e: AgentExit): void => {
    if (exit) return;
    exit = e;
    resolveExit(e);
  };
  child.on('error', (error) => finish({ code: null, signal: null, reason: `could not start ${file}: ${error.message}` }));
  child.on('exit', (code, signal) =>
    finish({ code, signal, reason: signal ? `agent killed by ${signal}` : `agent exited with code ${code ?? 'unknown'}` }),
  );
  let pending = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() !== '') spec.logger.info('agent stderr', { pid: child.pid, line: line.slice(0, STDERR_LINE_MAX) });
    }
    if (pending.length > STDERR_LINE_MAX * 4) pending = pending.slice(-STDERR_LINE_MAX);
  });
  const signalGroup = (signal: NodeJS.Signals): void => {
    if (exit || child.pid === undefined) return;
    try {
      if (process.platform !== 'win32') process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
    }
  };
  const end = async (boundMs: number): Promise<AgentExit> => {
    const wait = (ms: number): Promise<boolean> =>
      new Promise((resolve) => {
        if (exit) return resolve(true);
        const timer = setTimeout(() => resolve(false), ms);
        void exited.then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    try {
      child.stdin.end();
    } catch {
      // Already closed.
    }
    if (!(await wait(boundMs))) {
      signalGroup('SIGTERM');
      if (!(await wait(boundMs))) {
        signalGroup('SIGKILL');
        await wait(boundMs);
      }
    }
    // The agent exited: whatever it left in its group goes too.
    if (process.platform !== 'win32' && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is empty.
      }
    }
    return exited;
  };
  return { child, pid: child.pid ?? null, exited, hasExited: () => exit !== null, end };
}

/**
 * Ends a process a previous daemon left running (found in launched_sessions after a crash). Only
 * when `isOurs(pid)` confirms it (pid reuse), the group first, then the pid. Returns true when a
 * signal was sent.
 */
export function killLeftover(pid: number, isOurs: (pid: number) => boolean): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!isOurs(pid)) return false;
  for (const target of process.platform !== 'win32' ? [-pid, pid] : [pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Not a group leader, or already gone.
    }
  }
  return true;
}
