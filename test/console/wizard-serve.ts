/**
 * `serve` for the setup-wizard and quick-instruct tests, with a private home: HOME and the
 * vendors' config-dir variables point into a temp directory, so the installer the wizard drives
 * reads and writes only there. Reuses the console tests' CLI bundle and built console.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_DIR, REPO } from './support/console-build';
import { bundleCli, type ServeProcess } from './support/serve-process';

/** A running `serve` with its temp home. */
export interface HomedServe extends ServeProcess {
  readonly home: string;
  /** Removes the home and data directories (after stop). */
  dispose(): void;
}

/** Starts `serve --port 0` with HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, QWEN_HOME and HERMES_HOME inside a temp directory. */
export async function startHomedServe(): Promise<HomedServe> {
  const entry = await bundleCli();
  const root = mkdtempSync(join(tmpdir(), 'aep-wizard-'));
  const home = join(root, 'home');
  const dataDir = join(root, 'data');
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, 'config', 'claude'),
    CODEX_HOME: join(home, '.codex'),
    QWEN_HOME: join(home, '.qwen'),
    HERMES_HOME: join(home, '.hermes'),
    XDG_CONFIG_HOME: join(home, '.config'),
  };
  const child = spawn(process.execPath, [entry, 'serve', '--port', '0', '--data-dir', dataDir, '--console-dir', CONSOLE_DIR], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const consoleUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not print its console URL:\n${out}`)), 60_000);
    const check = () => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${out}`));
    });
  });
  return {
    url: new URL(consoleUrl).origin,
    consoleUrl,
    dataDir,
    home,
    operatorToken: decodeURIComponent(consoleUrl.split('#token=')[1]),
    hookToken: readFileSync(join(dataDir, 'hook-token'), 'utf8').trim(),
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(killer);
      }
    },
    dispose() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
