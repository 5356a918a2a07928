import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  captureWindowState,
  DEFAULT_WINDOW_STATE,
  fitToDisplays,
  loadWindowState,
  MIN_SIZE,
  parseWindowState,
  saveWindowState,
} from '../../../main/electron/window-state';

const laptop = { x: 0, y: 0, width: 1440, height: 870 };
const external = { x: 1440, y: 0, width: 2560, height: 1400 };

describe('window state', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('uses the default size for a missing, corrupt or incomplete file', () => {
    expect(parseWindowState(null)).toEqual(DEFAULT_WINDOW_STATE);
    expect(parseWindowState('{not json')).toEqual(DEFAULT_WINDOW_STATE);
    expect(parseWindowState('{"width":"wide","height":600}')).toEqual(DEFAULT_WINDOW_STATE);
    expect(parseWindowState('null')).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('keeps a saved position only when both coordinates are numbers, and never below the minimum size', () => {
    expect(parseWindowState('{"width":1000,"height":700,"x":10,"y":20,"maximized":true}')).toEqual({ width: 1000, height: 700, x: 10, y: 20, maximized: true });
    expect(parseWindowState('{"width":1000,"height":700,"x":10}')).toEqual({ width: 1000, height: 700, maximized: false });
    expect(parseWindowState('{"width":100,"height":50}')).toEqual({ width: MIN_SIZE.width, height: MIN_SIZE.height, maximized: false });
  });

  it('reopens where it was when that place is still on a display', () => {
    const saved = { x: 1600, y: 100, width: 1200, height: 800, maximized: false };
    expect(fitToDisplays(saved, [laptop, external])).toEqual(saved);
  });

  it('drops the position of a window left on a display that is gone, so the OS centres it', () => {
    const saved = { x: 1600, y: 100, width: 1200, height: 800, maximized: true };
    expect(fitToDisplays(saved, [laptop])).toEqual({ width: 1200, height: 800, maximized: true });
  });

  it('drops a position whose title bar is off screen even if a corner still shows', () => {
    const saved = { x: 1400, y: -700, width: 1200, height: 800, maximized: false };
    expect(fitToDisplays(saved, [laptop])).toEqual({ width: 1200, height: 800, maximized: false });
  });

  it('shrinks a window larger than every display', () => {
    expect(fitToDisplays({ width: 3000, height: 2000, maximized: false }, [laptop])).toEqual({ width: 1440, height: 870, maximized: false });
  });

  it('saves the normal bounds and the maximized flag, and reads them back', () => {
    dir = mkdtempSync(join(tmpdir(), 'aep-ws-'));
    const file = join(dir, 'window-state.json');
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
    saveWindowState(file, captureWindowState({ x: 10.4, y: 20.6, width: 1000, height: 700 }, true));
    expect(loadWindowState(file)).toEqual({ x: 10, y: 21, width: 1000, height: 700, maximized: true });
    writeFileSync(file, 'garbage');
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
    saveWindowState(file, DEFAULT_WINDOW_STATE);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(DEFAULT_WINDOW_STATE);
  });
});
