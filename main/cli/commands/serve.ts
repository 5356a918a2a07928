/**
 * `aep-companion serve [--port 8787] [--data-dir DIR] [--max-events-per-session N]
 * [--console-dir DIR] [--log-level debug|info|warn|error]`: runs the daemon headless. The port is
 * `--port`, else the stored `server.port` setting, else 8787.
 */
import { LOG_LEVELS, type LogLevel } from '../../core/logger';
import { runHeadless } from '../../headless';
import { helpOrRefusal, parseArgs, resolveDataDir } from '../locate-daemon';
import pkg from '../../../package.json';

const USAGE =
  'usage: aep-companion serve [--port 8787] [--data-dir DIR] [--max-events-per-session N] [--console-dir DIR] [--log-level LEVEL]\n';

function integer(value: string | true | undefined, min: number, max: number): number | null {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n >= min && n <= max ? n : null;
}

/** Runs `serve`; resolves with the exit code once the daemon stopped. */
export async function run(args: string[]): Promise<number> {
  const { positionals, options } = parseArgs(args, [
    'port',
    'data-dir',
    'max-events-per-session',
    'console-dir',
    'log-level',
  ]);
  if (options.has('h')) options.set('help', true);
  const known = new Set([
    'port',
    'data-dir',
    'max-events-per-session',
    'console-dir',
    'log-level',
    'h',
  ]);
  const refused = helpOrRefusal('serve', { positionals, options }, known, USAGE);
  if (refused !== null) return refused;
  // --port wins; without it the daemon binds the stored `server.port` setting (8787 by default).
  const port = options.has('port') ? integer(options.get('port'), 0, 65_535) : undefined;
  if (port === null) {
    process.stderr.write('aep-companion serve: --port must be an integer from 0 to 65535\n');
    return 2;
  }
  let maxEventsPerSession: number | undefined;
  if (options.has('max-events-per-session')) {
    const n = integer(options.get('max-events-per-session'), 1, 10_000_000);
    if (n === null) {
      process.stderr.write(
        'aep-companion serve: --max-events-per-session must be an integer from 1 to 10000000\n',
      );
      return 2;
    }
    maxEventsPerSession = n;
  }
  const level = options.get('log-level');
  if (level !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(level)) {
    process.stderr.write(
      `aep-companion serve: --log-level must be one of ${LOG_LEVELS.join(', ')}\n`,
    );
    return 2;
  }
  const dataDirFlag = options.get('data-dir');
  const consoleDir = options.get('console-dir');
  const code = await runHeadless({
    dataDir: resolveDataDir(typeof dataDirFlag === 'string' ? dataDirFlag : undefined),
    port,
    maxEventsPerSession,
    consoleDir: typeof consoleDir === 'string' ? consoleDir : undefined,
    logLevel: level as LogLevel | undefined,
    version: pkg.version,
  });
  // Whatever still holds the event loop (a stuck client socket) must not keep a stopped daemon alive.
  setTimeout(() => process.exit(code), 200).unref();
  return code;
}
