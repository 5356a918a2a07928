/**
 * Console section: in Debian Chromium against a `serve` child, the time to open a 10,000-event
 * session (route change → its newest rows painted: the first screen, older history possibly still
 * arriving), to render it whole (route change → the last row painted, every event held) and to show
 * 1,000 events appended live (POST → the newest row painted), against a floor measured in the
 * same page: one fetch of the same stored history, one JSON parse, one painted row. Reported,
 * never asserted.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { AepEvent } from '../common/aep/envelope';
import { postNdjson, report, startBenchDaemon } from './bench-lib';

const root = fileURLToPath(new URL('..', import.meta.url));
const HISTORY = Number(process.env.BENCH_CONSOLE_HISTORY ?? 10_000);
const LIVE = Number(process.env.BENCH_CONSOLE_LIVE ?? 1_000);
const SESSION = 'bench-console-session';
/** Another built console to measure (e.g. an earlier build, for a before/after); default out/renderer. */
const CONSOLE_DIR = process.env.BENCH_CONSOLE_DIR;

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Builds the console when out/renderer is missing or older than its sources. */
function ensureConsoleBuilt(): void {
  const index = join(root, 'out/renderer/index.html');
  if (
    existsSync(index) &&
    statSync(index).mtimeMs > Math.max(newest(join(root, 'renderer')), newest(join(root, 'common')))
  )
    return;
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (r.status !== 0) throw new Error('electron-vite build failed');
}

/** A realistic mix: prompts and run ends around tool request/result pairs, with content. */
function events(fromSeq: number, count: number): AepEvent[] {
  const out: AepEvent[] = [];
  const t0 = Date.now() - count;
  for (let i = 0; i < count; i++) {
    const seq = fromSeq + i;
    let type = 'tool.requested';
    let data: Record<string, unknown> = {
      tool: { name: 'Bash', call_id: `c${seq - (seq % 2)}` },
      args: { command: `echo step-${seq}` },
    };
    if (seq % 20 === 1) {
      type = 'run.started';
      data = { prompt: `prompt ${seq}`, trigger: 'user' };
    } else if (seq % 20 === 0) {
      type = 'run.finished';
      data = { duration_ms: 1234 };
    } else if (seq % 2 === 1) {
      type = 'tool.completed';
      data = { tool: { name: 'Bash', call_id: `c${seq - 1}` }, duration_ms: 12 };
    }
    out.push({
      aep: '0.1',
      id: `bench-console-${seq}`,
      type,
      time: new Date(t0 + i).toISOString(),
      source: 'aep://bench/console',
      agent: 'bench-agent',
      session: SESSION,
      epoch: 0,
      seq,
      capture: 'full',
      data,
    });
  }
  return out;
}

const ndjson = (list: AepEvent[]): string => list.map((e) => JSON.stringify(e)).join('\n');

/** Resolves in the page once `total` events are held and the row of seq `total - 1` or `total` is painted. */
function painted(total: number): string {
  return `new Promise((resolve) => {
    const store = window.aepConsole;
    const tick = () => {
      const held = store.detail.get(${JSON.stringify(SESSION)})?.size ?? 0;
      const last = document.querySelector('[data-testid=timeline-row][data-seq="${total - 1}"], [data-testid=timeline-row][data-seq="${total}"]');
      if (held >= total && last) requestAnimationFrame(() => resolve({ perf: performance.now(), wall: Date.now() }));
      else requestAnimationFrame(tick);
    };
    tick();
  })`.replaceAll('total', String(total));
}

/**
 * Resolves in the page with two times: when the timeline first shows the session's newest rows
 * (the row of seq `total - 1` or `total` painted, what a freshly opened session opens on: its
 * older history may still be arriving) and when every event is held with that row painted.
 */
function shown(total: number): string {
  return `new Promise((resolve) => {
    const store = window.aepConsole;
    let first = null;
    const tick = () => {
      const held = store.detail.get(${JSON.stringify(SESSION)})?.size ?? 0;
      const last = document.querySelector('[data-testid=timeline-row][data-seq="${total - 1}"], [data-testid=timeline-row][data-seq="${total}"]');
      if (last && first === null) first = performance.now();
      if (held >= ${total} && last) requestAnimationFrame(() => resolve({ first, perf: performance.now() }));
      else requestAnimationFrame(tick);
    };
    tick();
  })`;
}

/** Resolves in the page with the ms to fetch the session's stored history, parse it and paint one row. */
function floor(token: string): string {
  return `(async () => {
    const t = performance.now();
    const r = await fetch('/api/sessions/history?session=${SESSION}', { headers: { Authorization: 'Bearer ${token}' }, cache: 'no-store' });
    const page = await r.json();
    const div = document.createElement('div');
    div.textContent = page.events[page.events.length - 1].type;
    document.body.append(div);
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    div.remove();
    return performance.now() - t;
  })()`;
}

async function main(): Promise<void> {
  if (CONSOLE_DIR === undefined) ensureConsoleBuilt();
  const daemon = await startBenchDaemon([
    '--console-dir',
    CONSOLE_DIR ?? join(root, 'out/renderer'),
    '--max-events-per-session',
    String(HISTORY + LIVE + 1_000),
  ]);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  try {
    for (let i = 0; i < HISTORY; i += 5_000) {
      const status = await postNdjson(
        daemon.url,
        daemon.hook,
        ndjson(events(i + 1, Math.min(5_000, HISTORY - i))),
      );
      if (status !== 202) throw new Error(`POST /events answered ${status}`);
    }
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    await page.goto(`${daemon.url}/?skipWizard=1#token=${daemon.operator}`);
    await page.waitForSelector('[data-testid=connection-state][data-phase=open]');

    const started = await page.evaluate(
      `(() => { const t = performance.now(); location.hash = '#/sessions/${SESSION}'; return t; })()`,
    );
    const render = (await page.evaluate(shown(HISTORY))) as { first: number; perf: number };
    const renderMs = render.perf - (started as number);
    const firstMs = render.first - (started as number);

    // The floor, in the same page and run: the least any design must do to show this history,
    // one request for the same stored events, one JSON parse, one painted row.
    const floors: number[] = [];
    for (let i = 0; i < 3; i++)
      floors.push((await page.evaluate(floor(daemon.operator))) as number);
    const floorMs = Math.min(...floors);

    const waiting = page.evaluate(painted(HISTORY + LIVE)) as Promise<{ wall: number }>;
    const sentAt = Date.now();
    const status = await postNdjson(daemon.url, daemon.hook, ndjson(events(HISTORY + 1, LIVE)));
    if (status !== 202) throw new Error(`POST /events answered ${status}`);
    const appendMs = (await waiting).wall - sentAt;
    const domRows = await page.locator('[data-testid=timeline-row]').count();

    report('console (Chromium)', {
      [`first screen (newest rows painted) ms`]: Math.round(firstMs),
      [`first screen / floor`]: Number((firstMs / floorMs).toFixed(2)),
      [`render ${HISTORY}-event session ms`]: Math.round(renderMs),
      [`render rate events/s`]: Math.round(HISTORY / (renderMs / 1000)),
      [`floor: fetch + parse + paint ms`]: Math.round(floorMs),
      [`render / floor`]: Number((renderMs / floorMs).toFixed(2)),
      [`append ${LIVE} live events ms`]: Math.round(appendMs),
      'timeline rows in the DOM': domRows,
    });
  } finally {
    await browser.close();
    await daemon.stop();
  }
}

await main();
