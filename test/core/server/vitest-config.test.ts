/**
 * The test layers never pass silently (issue 8): with no `passWithNoTests`, a run that collects no
 * test file fails, and a layer that cannot run skips explicitly (the Electron suite says why).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

function vitest(args: string[]): { status: number | null; output: string } {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VITEST') && k !== 'NODE_OPTIONS') env[k] = v;
  const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], {
    cwd: repo,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

describe('vitest configuration', () => {
  it('fails a run whose filter collects no test file', () => {
    const run = vitest(['--project', 'core', 'test/core/no-such-directory-anywhere']);
    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(/No test files found/);
  });
});
