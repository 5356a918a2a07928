/**
 * Launch options of the desktop app, parsed in this one module: `--data-dir DIR`, `--port N`,
 * `--skip-wizard`, `--hidden` (also as `--name=value`). Electron and Chromium put their own
 * switches on the same command line (and Playwright adds more), so unknown arguments are ignored,
 * while a malformed value of ours is an error rather than a silent default.
 */
import { isAbsolute, resolve } from 'node:path';

/** What the app was asked to do at launch. */
export interface LaunchOptions {
  /** The data directory; null means the per-user default. */
  readonly dataDir: string | null;
  /** The port to bind; null means the stored `server.port` setting (8787 by default). */
  readonly port: number | null;
  /** Tests start the console without the setup wizard. */
  readonly skipWizard: boolean;
  /** Start in the tray without showing the window (start at login). */
  readonly hidden: boolean;
}

/** A parse result: the options, or a one-line reason. */
export type LaunchParse = { readonly ok: true; readonly value: LaunchOptions } | { readonly ok: false; readonly error: string };

const VALUE_FLAGS = new Set(['data-dir', 'port']);
const BOOLEAN_FLAGS = new Set(['skip-wizard', 'hidden']);

/**
 * Parses the command line (positionals such as the executable and app path are ignored). Without
 * `--data-dir`, AEP_COMPANION_DATA_DIR applies, as it does for the CLI, so both find one daemon.
 */
export function parseLaunchOptions(argv: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>> = {}): LaunchParse {
  let dataDir: string | null = env.AEP_COMPANION_DATA_DIR ? resolve(cwd, env.AEP_COMPANION_DATA_DIR) : null;
  let port: number | null = null;
  let skipWizard = false;
  let hidden = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) continue;
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (BOOLEAN_FLAGS.has(name)) {
      if (eq !== -1) return { ok: false, error: `--${name} takes no value` };
      if (name === 'skip-wizard') skipWizard = true;
      else hidden = true;
      continue;
    }
    if (!VALUE_FLAGS.has(name)) continue;
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[++i];
    if (value === undefined || value === '') return { ok: false, error: `--${name} needs a value` };
    if (name === 'port') {
      const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
      if (!(n >= 0 && n <= 65_535)) return { ok: false, error: '--port must be an integer from 0 to 65535' };
      port = n;
    } else {
      // Relative to where the user launched from, like every other command line tool.
      dataDir = isAbsolute(value) ? value : resolve(cwd, value);
    }
  }
  return { ok: true, value: { dataDir, port, skipWizard, hidden } };
}
