/** Debian Chromium through playwright-core, headless, never downloading a browser. */
import { chromium, type Browser } from 'playwright-core';

/** Launches the system Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}
