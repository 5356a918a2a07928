/** Screenshots of the console in light and dark, saved under test-results/screenshots/ for review. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO } from './console-build';

/** Where screenshots go (gitignored). */
export const SCREENSHOT_DIR = join(REPO, 'test-results', 'screenshots');

/** Saves `name-light.png` and `name-dark.png` of the current view (theme following the system). */
export async function shootBothThemes(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    // Let one frame paint in the new scheme before capturing.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
