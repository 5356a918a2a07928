/** Spawns `aep-companion serve` from source as a real child process and reads its output. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('./serve-entry.ts', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A running (or finished) serve child. */
export interface ServeChild {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>;
}

/** Starts `serve` with the given arguments (and `env` over this process's environment). */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): ServeChild {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, 'serve', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AEP_COMPANION_DATA_DIR: '', NODE_OPTIONS: '', ...env },
  });
  const result: ServeChild = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) =>
      child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
    ),
  };
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (result.stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (result.stderr += c));
  return result;
}

/** Waits until the child printed its two ready lines; returns the URL. Rejects if it exits first. */
export async function ready(s: ServeChild): Promise<string> {
  for (;;) {
    const lines = s.stdout.split('\n');
    if (lines.length >= 3) {
      const m = /^AEP Companion listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0]);
      if (!m) throw new Error(`unexpected first line: ${lines[0]}`);
      return m[1];
    }
    const exited = await Promise.race([
      s.exited,
      new Promise((r) => s.child.stdout!.once('data', () => r(null))),
    ]);
    if (exited !== null && s.stdout.split('\n').length < 3)
      throw new Error(`serve exited (${String(exited)}): ${s.stderr}`);
  }
}
