// SQLite's native binding for a runtime other than the Node that installed the tree. The tree's
// better-sqlite3 is built for that Node's ABI (tests, the CLI, `serve`); another runtime (Electron's
// main process, another Node line) loads a binding built for its own ABI, kept beside the tree in
// `node_modules/.cache/aep-companion/sqlite/better-sqlite3-<version>/<runtime>-<abi>-<platform>-<arch>/`
// and passed to better-sqlite3 as its `nativeBinding` option. Used by scripts/start.mjs (Electron,
// at the first `npm start`) and the tests (a second Node line); the hosts find the binding through
// sqlite-binding-path.mjs (main/sqlite-binding.ts).
//
// Preparation is node-gyp against the runtime's headers (`--nodedir`): Electron's are fetched by
// node-gyp from electronjs.org; a Node from npm (`node-<platform>-<arch>`) carries its own. The
// sources are copied to a scratch folder, so node_modules/better-sqlite3/build is never touched.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BINDING_FILE,
  defaultBindingRoot,
  preparedBindingFile,
  sqlitePackageDir,
} from './sqlite-binding-path.mjs';

export { BINDING_FILE, defaultBindingRoot, preparedBindingFile, sqlitePackageDir };

const require = createRequire(import.meta.url);

/** Where Electron publishes the headers native modules build against. */
export const ELECTRON_HEADERS_URL = 'https://electronjs.org/headers';

/**
 * What the runtime at `bin` is: `{ runtime, version, abi }`, asked of the binary itself (an
 * Electron binary answers as Node under ELECTRON_RUN_AS_NODE). Throws with the runtime's output
 * when it does not answer.
 */
export function probeRuntime(bin) {
  const r = spawnSync(bin, ['-p', 'JSON.stringify(process.versions)'], {
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0)
    throw new Error(
      `${bin} did not report its versions: ${(r.stderr || r.error?.message || '').trim().split('\n')[0]}`,
    );
  const versions = JSON.parse(r.stdout);
  return versions.electron
    ? { runtime: 'electron', version: versions.electron, abi: versions.modules }
    : { runtime: 'node', version: versions.node, abi: versions.modules };
}

/** "Electron 45.5.0" / "Node 22.23.5". */
const runtimeName = (rt) => `${rt.runtime === 'electron' ? 'Electron' : 'Node'} ${rt.version}`;

/**
 * Makes sure a binding for the runtime at `bin` exists and loads under that runtime. Resolves
 * `{ ok: true, file, built }` or `{ ok: false, reason }` (one line, fit for a terminal); never
 * throws for an expected failure (no network for Electron's headers, no compiler).
 *
 * Options: `root` (the folder of prepared bindings), `headers` (a folder holding include/node; by
 * default a Node runtime's own install, or Electron's fetched into `<root>/headers` from
 * `headersUrl`, by default ELECTRON_HEADERS_URL), `onBuild` (told once a build starts, with the
 * runtime's name), `pkgDir` (the better-sqlite3 to build).
 */
export async function prepareSqliteBinding(bin, options = {}) {
  const pkgDir = options.pkgDir ?? sqlitePackageDir();
  const root = options.root ?? defaultBindingRoot(pkgDir);
  let rt;
  try {
    rt = probeRuntime(bin);
  } catch (e) {
    return { ok: false, reason: e.message };
  }
  const file = preparedBindingFile(rt, { root, pkgDir });
  if (existsSync(file) && loads(bin, pkgDir, file).ok)
    return { ok: true, file, built: false, runtime: rt };
  const headers =
    options.headers ??
    (await runtimeHeaders(bin, rt, root, options.headersUrl ?? ELECTRON_HEADERS_URL));
  if (typeof headers !== 'string')
    return {
      ok: false,
      reason: `SQLite cannot be prepared for ${runtimeName(rt)}: ${headers.reason}`,
    };
  options.onBuild?.(runtimeName(rt));
  const built = await build(pkgDir, headers, file);
  if (!built.ok)
    return { ok: false, reason: `SQLite cannot be built for ${runtimeName(rt)}: ${built.reason}` };
  const check = loads(bin, pkgDir, file);
  if (!check.ok) {
    rmSync(dirname(file), { recursive: true, force: true });
    return {
      ok: false,
      reason: `the SQLite binding built for ${runtimeName(rt)} does not load: ${check.reason}`,
    };
  }
  return { ok: true, file, built: true, runtime: rt };
}

/** A folder holding include/node/node.h for the runtime, or why there is none. */
async function runtimeHeaders(bin, rt, root, headersUrl) {
  if (rt.runtime === 'node') {
    // A Node install (and npm's node-<platform>-<arch> package) keeps its headers beside bin/.
    const dir = join(dirname(realpathSync(bin)), '..');
    return existsSync(join(dir, 'include', 'node', 'node.h'))
      ? dir
      : { reason: `no headers beside ${bin} (include/node/node.h)` };
  }
  const devdir = join(root, 'headers');
  const dir = join(devdir, rt.version);
  if (existsSync(join(dir, 'include', 'node', 'node.h'))) return dir;
  mkdirSync(devdir, { recursive: true });
  // node-gyp's own message for a network failure names no cause: ask once, briefly, first (not
  // behind a proxy, which Node's fetch would not use and node-gyp does).
  const proxied = ['https_proxy', 'HTTPS_PROXY', 'npm_config_https_proxy', 'npm_config_proxy'].some(
    (k) => process.env[k],
  );
  const reachable = proxied
    ? null
    : await reach(`${headersUrl}/v${rt.version}/node-v${rt.version}-headers.tar.gz`);
  if (reachable !== null)
    return {
      reason: `its headers cannot be downloaded from ${headersUrl} (${reachable}; offline?)`,
    };
  const r = await nodeGyp(
    ['install', `--target=${rt.version}`, `--dist-url=${headersUrl}`, `--devdir=${devdir}`],
    devdir,
    {},
    5 * 60_000,
  );
  if (r.code !== 0 || !existsSync(join(dir, 'include', 'node', 'node.h')))
    return { reason: `node-gyp could not install its headers from ${headersUrl} (exit ${r.code})` };
  return dir;
}

/** Null when `url` answers, else why not (the network error's code, or the HTTP status). */
async function reach(url) {
  try {
    const res = await fetch(url, {
      method: 'HEAD',
      redirect: 'follow',
      signal: AbortSignal.timeout(15_000),
    });
    return res.ok ? null : `HTTP ${res.status}`;
  } catch (e) {
    return e.cause?.code ?? e.cause?.message ?? e.message;
  }
}

/** node-gyp builds the copied sources against `headers`; the binding is moved into place last. */
async function build(pkgDir, headers, file) {
  const folder = dirname(file);
  const scratch = `${folder}.build-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  try {
    mkdirSync(scratch, { recursive: true });
    for (const part of ['binding.gyp', 'src', 'deps'])
      cpSync(join(pkgDir, part), join(scratch, part), { recursive: true });
    // The build runs better-sqlite3's own CommonJS helper scripts: outside node_modules a package.json
    // above the scratch folder (this repository's, "type": "module") would make Node read them as ES modules.
    writeFileSync(join(scratch, 'package.json'), '{"type":"commonjs"}\n');
    const jobs = String(Math.max(1, availableParallelism()));
    // npm_config_nodedir too: under `npm start` npm exports the user's own nodedir setting.
    const r = await nodeGyp(
      ['rebuild', '--release', `--nodedir=${headers}`, `--jobs=${jobs}`],
      scratch,
      { npm_config_nodedir: headers },
      20 * 60_000,
    );
    const out = join(scratch, 'build', 'Release', BINDING_FILE);
    if (r.code !== 0 || !existsSync(out))
      return { ok: false, reason: gypError(r.output) ?? `node-gyp exited with ${r.code}` };
    mkdirSync(folder, { recursive: true });
    // A rename within one folder is atomic: a concurrent start sees the old state or the whole file.
    cpSync(out, `${file}.${process.pid}`);
    renameSync(`${file}.${process.pid}`, file);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: e.message };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Whether the runtime at `bin` opens a database through `file` (the binding's own check). */
function loads(bin, pkgDir, file) {
  const script = `const D = require(${JSON.stringify(pkgDir)}); const db = new D(':memory:', { nativeBinding: ${JSON.stringify(file)} }); db.prepare('select 1').get(); db.close();`;
  const r = spawnSync(bin, ['-e', script], {
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status === 0) return { ok: true };
  const line =
    (r.stderr || r.error?.message || '').split('\n').find((l) => /Error/.test(l)) ??
    `exit ${r.status}`;
  return { ok: false, reason: line.trim() };
}

function nodeGyp(args, cwd, env, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [require.resolve('node-gyp/bin/node-gyp.js'), ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk) => {
      output = (output + chunk.toString('utf8')).slice(-100_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `${output}\n${e.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The first error line node-gyp printed (its stack's head, or a compiler's `error:`). */
function gypError(output) {
  const lines = output.split('\n');
  const line =
    lines.find((l) => /^gyp ERR! stack \w*Error/.test(l)) ??
    lines.find((l) => /\berror:/.test(l)) ??
    lines.find((l) => /^gyp ERR! (?!stack|System|command|cwd|node -v|node-gyp -v|not ok)/.test(l));
  return line?.replace(/^gyp ERR! (stack )?/, '').trim();
}

// `node scripts/sqlite-binding.mjs <runtime binary>`: prepares the binding, prints its path.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bin = process.argv[2];
  if (!bin) {
    process.stderr.write('usage: node scripts/sqlite-binding.mjs <node or electron binary>\n');
    process.exit(2);
  }
  const result = await prepareSqliteBinding(bin, {
    onBuild: (name) => process.stdout.write(`Building SQLite for ${name}…\n`),
  });
  if (!result.ok) {
    process.stderr.write(`${result.reason}\n`);
    process.exit(1);
  }
  process.stdout.write(`${result.file}\n`);
}
