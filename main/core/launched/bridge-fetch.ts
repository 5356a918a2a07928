/**
 * Fetches a bridge package on demand into `<dataDir>/agents/<package>@<version>` with npm (never
 * bundled with the app). Progress is visible: every npm output line goes to the fetch log (served
 * by GET /api/agents) and the logger. Atomic (scratch folder, then rename) and one fetch at a time
 * per package; offline, the error says so in one line.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentBridge } from '../../../common/agents';
import type { Logger } from '../logger';
import type { BridgeSpec } from './catalogue';

const LOG_LINES = 40;

/** Fetch options. */
export interface BridgeFetcherOptions {
  readonly dataDir: string;
  /** The environment npm runs with (the daemon's). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** The npm executable (default `npm` from PATH). */
  readonly npm?: string;
  readonly timeoutMs?: number;
}

interface FetchState {
  state: AgentBridge['state'];
  log: string[];
  error: string | null;
  running: Promise<string> | null;
}

/** The fetcher of one daemon. */
export class BridgeFetcher {
  private readonly states = new Map<string, FetchState>();

  constructor(private readonly options: BridgeFetcherOptions) {}

  private dir(spec: BridgeSpec): string {
    return join(this.options.dataDir, 'agents', `${spec.package.replace('/', '+')}@${spec.version}`);
  }

  /** The entry script when fetched, else null. */
  entry(spec: BridgeSpec): string | null {
    const file = join(this.dir(spec), 'node_modules', spec.package, spec.entry);
    return existsSync(file) ? file : null;
  }

  /** The state as the catalogue shows it. */
  status(spec: BridgeSpec): AgentBridge {
    const s = this.states.get(this.dir(spec));
    const ready = this.entry(spec) !== null;
    return {
      package: spec.package,
      version: spec.version,
      state: ready ? 'ready' : (s?.state ?? 'absent'),
      log: [...(s?.log ?? [])],
      error: ready ? null : (s?.error ?? null),
    };
  }

  /** Fetches (once; concurrent callers share it) and resolves with the entry script. */
  fetch(spec: BridgeSpec): Promise<string> {
    const ready = this.entry(spec);
    if (ready) return Promise.resolve(ready);
    const key = this.dir(spec);
    let s = this.states.get(key);
    if (!s) this.states.set(key, (s = { state: 'absent', log: [], error: null, running: null }));
    if (s.running) return s.running;
    const state = s;
    state.state = 'fetching';
    state.error = null;
    state.log = [];
    state.running = this.install(spec, state).finally(() => {
      state.running = null;
    });
    return state.running;
  }

  private async install(spec: BridgeSpec, state: FetchState): Promise<string> {
    const dir = this.dir(spec);
    const scratch = `${dir}.tmp-${process.pid}`;
    const line = (text: string): void => {
      state.log.push(text);
      if (state.log.length > LOG_LINES) state.log.splice(0, state.log.length - LOG_LINES);
      this.options.logger.info('bridge fetch', { package: spec.package, line: text });
    };
    try {
      await rm(scratch, { recursive: true, force: true });
      await mkdir(scratch, { recursive: true });
      await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'aep-companion-agent-bridge', private: true }));
      line(`fetching ${spec.package}@${spec.version}`);
      const code = await this.npm(['install', '--prefix', scratch, '--no-audit', '--no-fund', '--no-save', '--loglevel=http', `${spec.package}@${spec.version}`], scratch, line);
      if (code !== 0) {
        const offline = state.log.some((l) => /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|network|offline/i.test(l));
        throw new Error(
          offline
            ? `cannot fetch ${spec.package}@${spec.version}: the npm registry is not reachable (offline?)`
            : `fetching ${spec.package}@${spec.version} failed (npm exit ${code}); see the fetch log`,
        );
      }
      await rm(dir, { recursive: true, force: true });
      await rename(scratch, dir);
      const entry = this.entry(spec);
      if (!entry) throw new Error(`${spec.package}@${spec.version} was fetched but has no ${spec.entry}`);
      line('ready');
      state.state = 'ready';
      return entry;
    } catch (error) {
      await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
      state.state = 'failed';
      state.error = (error as Error).message;
      line(state.error);
      throw error;
    }
  }

  private npm(args: string[], cwd: string, line: (text: string) => void): Promise<number> {
    return new Promise((resolve) => {
      const child = spawn(this.options.npm ?? 'npm', args, {
        cwd,
        env: { ...(this.options.env as NodeJS.ProcessEnv), npm_config_update_notifier: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), this.options.timeoutMs ?? 10 * 60_000);
      let pending = '';
      const collect = (chunk: Buffer): void => {
        pending += chunk.toString('utf8');
        let nl: number;
        while ((nl = pending.indexOf('\n')) !== -1) {
          const text = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          if (text !== '') line(text.slice(0, 500));
        }
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      child.on('error', (error) => {
        clearTimeout(timer);
        line(`could not run npm: ${error.message}`);
        resolve(-1);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (pending.trim() !== '') line(pending.trim().slice(0, 500));
        resolve(code ?? -1);
      });
    });
  }
}
