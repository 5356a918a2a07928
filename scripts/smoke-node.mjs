// `node scripts/smoke-node.mjs <node binary> [--keep]`: the smoke subset under another Node line
// (CI runs it with Node 22 from npm). In a copy of the tree, so the tree's own install is untouched:
// `npm ci` with that Node (native modules built against its headers), then `serve` answers /healthz,
// a hook through the installed shim (the Node shim, recorded with that runtime) reaches it, and the
// CLI turns steering on through the daemon and off through the database once it stopped.
// Prints one line per step with its duration; exits 1 with the failing step's reason.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [nodeArg, ...flags] = process.argv.slice(2);
if (!nodeArg) {
  process.stderr.write('usage: node scripts/smoke-node.mjs <node binary> [--keep]\n');
  process.exit(2);
}
const node = realpathSync(nodeArg);
const keep = flags.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'aep-smoke-node-'));
const tree = join(work, 'tree');
const home = join(work, 'home');
const dataDir = join(work, 'data');
const started = Date.now();

class StepError extends Error {}

// The other Node first on PATH (lifecycle scripts, node-gyp and the installed launcher's `node`),
// its own headers for node-gyp, no Electron download, no user npm or agent config from this machine.
const env = {
  ...process.env,
  PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`,
  npm_config_nodedir: join(dirname(node), '..'),
  ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? home, '.npm'),
  npm_config_update_notifier: 'false',
};
delete env.AEP_COMPANION_URL;

async function step(name, fn) {
  const t = Date.now();
  try {
    const detail = await fn();
    console.log(
      `smoke-node: ${name}: ok${detail ? ` (${detail})` : ''} [${((Date.now() - t) / 1000).toFixed(1)} s]`,
    );
  } catch (e) {
    console.error(`smoke-node: ${name}: FAILED: ${e.message}`);
    throw new StepError(e.message);
  }
}

/** Runs `node args` in the copy; its output, or a StepError with the output's tail. */
function run(args, { input, timeout = 120_000, extraEnv = {} } = {}) {
  const r = spawnSync(node, args, {
    cwd: tree,
    env: { ...env, ...extraEnv },
    input,
    encoding: 'utf8',
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0)
    throw new Error(
      `${basename(node)} ${args.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout || r.error?.message || '').trim().slice(-2000)}`,
    );
  return r.stdout;
}

/** npm's own CLI script, run by the other Node. */
function npmCli() {
  const candidates = [
    process.env.npm_execpath,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ];
  const which = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  if (which) candidates.push(join(dirname(realpathSync(which)), 'npm-cli.js'));
  const found = candidates.find((c) => c && c.endsWith('npm-cli.js') && existsSync(c));
  if (!found) throw new Error('npm-cli.js not found beside this Node or on PATH');
  return found;
}

let serve = null;
let exitCode = 0;
try {
  await step('copy of the tree', () => {
    const skip = new Set([
      'node_modules',
      'out',
      'release',
      'dist',
      '.git',
      '.vendor-cache',
      '.cache',
      'test-results',
    ]);
    // Only the top level's installs, builds and caches stay behind.
    cpSync(root, tree, {
      recursive: true,
      filter: (src) => !skip.has(relative(root, src).split(sep)[0]),
    });
    return tree;
  });
  await step('runtime', () =>
    run(['-p', 'process.version + " ABI " + process.versions.modules']).trim(),
  );
  await step('npm ci', () => {
    run([npmCli(), 'ci', '--no-audit', '--no-fund', '--loglevel=error'], { timeout: 10 * 60_000 });
  });
  await step('SQLite binding', () =>
    run([
      '-e',
      "const D = require('better-sqlite3'); const db = new D(':memory:'); console.log('sqlite ' + db.prepare('select sqlite_version() v').get().v + ' for ABI ' + process.versions.modules); db.close();",
    ]).trim(),
  );
  await step('CLI build', () => {
    run(['scripts/build-cli.mjs']);
  });

  let url = '';
  let operator = '';
  await step('serve answers /healthz', async () => {
    serve = spawn(node, ['bin/aep-companion.mjs', 'serve', '--port', '0', '--data-dir', dataDir], {
      cwd: tree,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    serve.stderr.on('data', (c) => (err += c));
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`serve printed no token link within 60 s: ${err.trim()}`)),
        60_000,
      );
      serve.stdout.on('data', (chunk) => {
        out += chunk;
        const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          [, url, operator] = m;
          resolve();
        }
      });
      serve.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited ${code}: ${err.trim()}`));
      });
    });
    const health = await (await fetch(`${url}/healthz`)).json();
    if (health.ok !== true) throw new Error(`/healthz said ${JSON.stringify(health)}`);
    return url;
  });

  await step('hook through the installed shim', async () => {
    run([
      'bin/aep-companion.mjs',
      'install',
      '--vendor',
      'claude-code',
      '--transport',
      'command',
      '--data-dir',
      dataDir,
    ]);
    const launcher = readFileSync(join(dataDir, 'bin', 'aep-companion-hook'), 'utf8');
    if (!launcher.includes(node))
      throw new Error(`the launcher does not run the shim with ${node}`);
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks?.SessionStart?.[0]?.hooks?.[0]?.command;
    if (!command) throw new Error('no SessionStart hook command in ~/.claude/settings.json');
    const payload = {
      session_id: 'smoke-node-1',
      hook_event_name: 'SessionStart',
      source: 'startup',
      cwd: work,
      transcript_path: join(work, 't.jsonl'),
    };
    // AEP_HOOK_FAST=0: the Node shim, not the bash fast path, so the runtime under test runs the hook.
    const r = spawnSync('sh', ['-c', command], {
      env: { ...env, AEP_HOOK_FAST: '0', AEP_HOOK_DOCTOR: '1' },
      input: JSON.stringify(payload),
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (r.status !== 0) throw new Error(`the hook command exited ${r.status}: ${r.stderr}`);
    const health = await (
      await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${operator}` } })
    ).json();
    if (!(health.sessions >= 1 && health.events >= 1))
      throw new Error(
        `the daemon recorded no session: ${JSON.stringify(health)} (hook stderr: ${r.stderr.trim()})`,
      );
    return `${health.sessions} session, ${health.events} event(s)`;
  });

  await step('CLI steering on (through the daemon)', () => {
    const out = run(['bin/aep-companion.mjs', 'steering', 'on', '--data-dir', dataDir]).trim();
    if (!/steering is on/.test(out) || /no daemon running/.test(out))
      throw new Error(`unexpected: ${out}`);
    return out;
  });

  await step('serve stops on SIGTERM', async () => {
    const code = await new Promise((resolve) => {
      serve.once('exit', (c, signal) => resolve(c ?? signal));
      serve.kill('SIGTERM');
    });
    serve = null;
    if (code !== 0) throw new Error(`serve exited ${code}`);
  });

  await step('CLI steering off (through the database)', () => {
    const out = run(['bin/aep-companion.mjs', 'steering', 'off', '--data-dir', dataDir]).trim();
    if (!/steering is off \(no daemon running/.test(out)) throw new Error(`unexpected: ${out}`);
    return out;
  });
  console.log(
    `smoke-node: all steps passed under ${node} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
} catch (e) {
  if (!(e instanceof StepError)) console.error(`smoke-node: ${e.stack ?? e}`);
  exitCode = 1;
} finally {
  serve?.kill('SIGKILL');
  if (keep) console.log(`smoke-node: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);
