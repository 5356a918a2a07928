// Console section of `npm run bench`: how long the console takes, in Debian Chromium against the
// real `serve`, to render a 10,000-event session and to show 1,000 events appended live.
// Reported, never asserted. Runs on its own too: `node bench/console.mjs`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SESSION = 'bench-console-session';
const SOURCE = 'aep://localhost/bench/console';
const HISTORY = 10_000;
const LIVE = 1_000;

/** Section name as the runner prints it. */
export const name = 'console';

function ensureBuilt() {
  if (existsSync(join(ROOT, 'out/renderer/index.html'))) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('electron-vite build failed');
}

/** A realistic mix: prompts and run ends around tool request/result pairs. */
function events(fromSeq, count) {
  const out = [];
  const t0 = Date.now() - count;
  for (let i = 0; i < count; i++) {
    const seq = fromSeq + i;
    const k = seq % 20;
    let type = 'tool.requested';
    let data = { tool: { name: 'Bash', call_id: `c${seq - (seq % 2)}` }, args: { command: `echo step-${seq}` } };
    if (k === 1) {
      type = 'run.started';
      data = { prompt: `prompt ${seq}`, trigger: 'user' };
    } else if (k === 0) {
      type = 'run.finished';
      data = { duration_ms: 1234 };
    } else if (seq % 2 === 1) {
      type = 'tool.completed';
      data = { tool: { name: 'Bash', call_id: `c${seq - 1}` }, duration_ms: 12 };
    }
    out.push({ aep: '0.1', id: `bench-${seq}`, type, time: new Date(t0 + i).toISOString(), source: SOURCE, agent: 'bench-agent', session: SESSION, epoch: 0, seq, capture: 'full', data });
  }
  return out;
}

async function post(url, token, batch) {
  const res = await fetch(`${url}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', 'aep-version': '0.1', authorization: `Bearer ${token}` },
    body: batch.map((e) => JSON.stringify(e)).join('\n'),
  });
  if (!res.ok) throw new Error(`POST /events: ${res.status} ${await res.text()}`);
}

function startServe(dataDir) {
  const child = spawn(process.execPath, [join(ROOT, 'bin/aep-companion.mjs'), 'serve', '--port', '0', '--data-dir', dataDir, '--console-dir', join(ROOT, 'out/renderer'), '--max-events-per-session', '50000'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(out);
      if (m) resolve({ child, url: m[1], consoleUrl: m[0], hookToken: readFileSync(join(dataDir, 'hook-token'), 'utf8').trim() });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

/** Runs the section; resolves with the measurements. */
export async function run() {
  ensureBuilt();
  const { chromium } = await import('playwright-core');
  const dataDir = mkdtempSync(join(tmpdir(), 'aep-bench-console-'));
  const daemon = await startServe(dataDir);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  try {
    await post(daemon.url, daemon.hookToken, events(1, HISTORY));
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    await page.goto(daemon.consoleUrl);
    await page.waitForFunction(() => document.querySelector('[data-testid=connection-state][data-phase=open]'));

    // Open the session: from the route change to the last row painted, all events held.
    const renderMs = await page.evaluate(
      ({ session, total }) =>
        new Promise((resolve) => {
          const store = window.aepConsole;
          const start = performance.now();
          location.hash = `#/sessions/${session}`;
          const tick = () => {
            const held = store.detail.get(session)?.size ?? 0;
            const last = document.querySelector(`[data-testid=timeline-row][data-seq="${total - 1}"], [data-testid=timeline-row][data-seq="${total}"]`);
            if (held >= total && last) requestAnimationFrame(() => resolve(performance.now() - start));
            else requestAnimationFrame(tick);
          };
          tick();
        }),
      { session: SESSION, total: HISTORY },
    );

    // Append live: from the POST leaving Node to the newest row painted.
    const waiting = page.evaluate(
      ({ session, total }) =>
        new Promise((resolve) => {
          const store = window.aepConsole;
          const tick = () => {
            const held = store.detail.get(session)?.size ?? 0;
            const last = document.querySelector(`[data-testid=timeline-row][data-seq="${total - 1}"], [data-testid=timeline-row][data-seq="${total}"]`);
            if (held >= total && last) requestAnimationFrame(() => resolve(Date.now()));
            else requestAnimationFrame(tick);
          };
          tick();
        }),
      { session: SESSION, total: HISTORY + LIVE },
    );
    const sentAt = Date.now();
    await post(daemon.url, daemon.hookToken, events(HISTORY + 1, LIVE));
    const appendMs = (await waiting) - sentAt;
    const domRows = await page.locator('[data-testid=timeline-row]').count();
    return [
      { name: `render a ${HISTORY.toLocaleString('en-US')}-event session (route change → last row painted)`, value: Math.round(renderMs), unit: 'ms' },
      { name: `append ${LIVE.toLocaleString('en-US')} live events (POST → newest row painted)`, value: Math.round(appendMs), unit: 'ms' },
      { name: 'timeline rows in the DOM afterwards (virtualized)', value: domRows, unit: 'rows' },
    ];
  } finally {
    await browser.close();
    daemon.child.kill('SIGTERM');
    await new Promise((r) => daemon.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await run();
  for (const r of results) console.log(`${name}: ${r.name}: ${r.value} ${r.unit}`);
}
