/**
 * Window state (size, position, maximized) remembered across launches in a small JSON file in the
 * app's data directory. The math is pure: a saved position is only reused while it still lands on
 * a connected display, so a window closed on an unplugged monitor never reopens off screen.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** A rectangle in screen coordinates. */
export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** What is saved. */
export interface WindowState {
  readonly width: number;
  readonly height: number;
  /** Absent until the window was placed by the user (the OS centres a new window). */
  readonly x?: number;
  readonly y?: number;
  readonly maximized: boolean;
}

/** The first-launch size. */
export const DEFAULT_WINDOW_STATE: WindowState = { width: 1200, height: 800, maximized: false };

/** The smallest window the console lays out in. */
export const MIN_SIZE = { width: 720, height: 480 } as const;

/** Title-bar-sized strip that must stay visible for the user to grab the window. */
const GRAB = 48;

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Reads a saved state from its JSON text; anything malformed yields the default. */
export function parseWindowState(text: string | null): WindowState {
  if (text === null) return DEFAULT_WINDOW_STATE;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return DEFAULT_WINDOW_STATE;
  }
  if (typeof raw !== 'object' || raw === null) return DEFAULT_WINDOW_STATE;
  const r = raw as Record<string, unknown>;
  if (!finite(r.width) || !finite(r.height)) return DEFAULT_WINDOW_STATE;
  const state: WindowState = {
    width: Math.max(MIN_SIZE.width, Math.round(r.width)),
    height: Math.max(MIN_SIZE.height, Math.round(r.height)),
    maximized: r.maximized === true,
    ...(finite(r.x) && finite(r.y) ? { x: Math.round(r.x), y: Math.round(r.y) } : {}),
  };
  return state;
}

const overlap = (a: Rect, b: Rect): Rect | null => {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
};

/**
 * Fits a saved state to the displays connected now (their work areas): the size shrinks to the
 * largest work area, and the position is dropped (the OS centres the window) unless the window's
 * top strip is visible on one of them.
 */
export function fitToDisplays(state: WindowState, workAreas: readonly Rect[]): WindowState {
  if (workAreas.length === 0) return state;
  const maxWidth = Math.max(...workAreas.map((a) => a.width));
  const maxHeight = Math.max(...workAreas.map((a) => a.height));
  const width = Math.min(state.width, maxWidth);
  const height = Math.min(state.height, maxHeight);
  const base = { width, height, maximized: state.maximized };
  if (state.x === undefined || state.y === undefined) return base;
  const titleStrip: Rect = { x: state.x, y: state.y, width, height: Math.min(GRAB, height) };
  const visible = workAreas.some((area) => {
    const o = overlap(titleStrip, area);
    return o !== null && o.width >= Math.min(GRAB, width) && o.height >= Math.min(GRAB, height) / 2;
  });
  return visible ? { ...base, x: state.x, y: state.y } : base;
}

/** The state to save for a window: its normal (un-maximized) bounds and whether it is maximized. */
export function captureWindowState(normalBounds: Rect, maximized: boolean): WindowState {
  return {
    x: Math.round(normalBounds.x),
    y: Math.round(normalBounds.y),
    width: Math.round(normalBounds.width),
    height: Math.round(normalBounds.height),
    maximized,
  };
}

/** Reads the state file; a missing or unreadable file yields the default. */
export function loadWindowState(file: string): WindowState {
  let text: string | null;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = null;
  }
  return parseWindowState(text);
}

/** Writes the state file atomically (a crash mid-write must not leave half a file). */
export function saveWindowState(file: string, state: WindowState): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
