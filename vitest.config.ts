import { defineConfig } from 'vitest/config';

/** Test layers (docs/ARCHITECTURE.md): core in Node, console in Chromium, vendors with real CLIs, electron opt-in. */
export default defineConfig({
  test: {
    // No passWithNoTests: a layer that cannot run skips explicitly (describe.skipIf with a reason).
    projects: [
      {
        test: {
          name: 'core',
          include: ['test/core/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'console',
          include: ['test/console/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'vendors',
          include: ['test/vendors/**/*.test.ts'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 900_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'electron',
          include: ['test/electron/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
