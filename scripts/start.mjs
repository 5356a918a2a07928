// `npm start`: launch the desktop app; where Electron cannot run (binary missing and not
// downloadable, no display, or no SQLite binding for Electron's ABI and none can be built), say so
// in one line and run the headless daemon instead, which prints the browser console URL. The
// binding is built once, at the first start (scripts/sqlite-binding.mjs), beside the tree's own.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareSqliteBinding } from './sqlite-binding.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);

function ensureBuilt() {
  const needed = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
  if (needed.every((f) => existsSync(join(root, f)))) return;
  console.log('Building the app (first run)…');
  const r = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** Path of the Electron binary, or a reason it cannot be had. Never triggers a download by itself. */
function electronBinary() {
  const require = createRequire(import.meta.url);
  let pkgDir;
  try {
    pkgDir = dirname(require.resolve('electron/package.json'));
  } catch {
    return { reason: 'the electron package is not installed' };
  }
  const locate = () => {
    const pathFile = join(pkgDir, 'path.txt');
    if (!existsSync(pathFile)) return null;
    const bin = join(pkgDir, 'dist', readFileSync(pathFile, 'utf8'));
    return existsSync(bin) ? bin : null;
  };
  let bin = locate();
  if (!bin) {
    // Electron fetches its binary lazily; try once, quietly.
    // Bounded, so a network that swallows packets delays the fallback by two minutes at most.
    const r = spawnSync(process.execPath, [join(pkgDir, 'install.js')], { stdio: 'ignore', timeout: 120_000 });
    bin = r.status === 0 ? locate() : null;
    if (!bin) return { reason: 'the Electron binary is missing and could not be downloaded (offline?)' };
  }
  return { bin };
}

function hasDisplay() {
  if (process.platform !== 'linux') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

// Launch options only the desktop app has (main/electron/launch-options.ts); `serve` would refuse them.
const DESKTOP_ONLY = new Set(['--skip-wizard', '--hidden']);

function serveInstead(reason) {
  console.log(`Electron cannot run here (${reason}); starting the browser console instead.`);
  const serveArgs = args.filter((a) => !DESKTOP_ONLY.has(a));
  const child = spawn(process.execPath, [join(root, 'bin/aep-companion.mjs'), 'serve', ...serveArgs], {
    cwd: root,
    stdio: 'inherit',
  });
  const forward = (sig) => child.kill(sig);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
}

/**
 * The Electron main process opens SQLite through a binding built for Electron's ABI; it finds the
 * one prepared here (main/sqlite-binding.ts). Null when ready, else the one-line reason.
 */
async function sqliteForElectron(bin) {
  const result = await prepareSqliteBinding(bin, {
    onBuild: (name) => console.log(`Building SQLite for ${name} (first start only, a minute or two)…`),
  });
  return result.ok ? null : result.reason;
}

ensureBuilt();
const electron = electronBinary();
const sqliteProblem = electron.bin && hasDisplay() ? await sqliteForElectron(electron.bin) : null;
if (!electron.bin) serveInstead(electron.reason);
else if (!hasDisplay()) serveInstead('no display');
else if (sqliteProblem) serveInstead(sqliteProblem);
else {
  const startedAt = Date.now();
  const child = spawn(electron.bin, [root, ...args], { cwd: root, stdio: 'inherit' });
  child.on('error', (e) => serveInstead(`the Electron binary failed to start: ${e.message}`));
  child.on('exit', (code, signal) => {
    // A failure right at launch (missing system libraries, no usable display) falls back;
    // a later exit is the app's own.
    const atLaunch = Date.now() - startedAt < 10_000;
    if (atLaunch && code && !signal) serveInstead(`Electron exited at launch with code ${code}`);
    else process.exit(code ?? 0);
  });
}
