/**
 * The process-level last resort (issue 8 §1): an exception or rejection no guard caught is
 * reported loudly and the process exits with code 70; it never continues silently.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FATAL_EXIT_CODE } from '../../../main/core/last-resort';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs `body` in a child Node with the last resort installed as the hosts install it. */
function runChild(body: string): { status: number | null; stderr: string; stdout: string } {
  const script = `
    import { installLastResort } from './main/core/last-resort.ts';
    installLastResort(process, { write: (line) => process.stderr.write(line + '\\n') });
    ${body}
    setTimeout(() => { process.stdout.write('still running\\n'); }, 200);
  `;
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: repo,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { status: child.status, stderr: child.stderr, stdout: child.stdout };
}

describe('the last resort', () => {
  it('exits loudly on an uncaught exception', () => {
    const r = runChild(
      `setImmediate(() => { throw new RangeError('Maximum call stack size exceeded'); });`,
    );
    expect(r.status).toBe(FATAL_EXIT_CODE);
    expect(r.stderr).toMatch(/aep-companion: FATAL uncaught exception; the daemon stops now/);
    expect(r.stderr).toContain('RangeError: Maximum call stack size exceeded');
    expect(r.stdout).not.toContain('still running');
  });

  it('exits loudly on an unhandled rejection', () => {
    const r = runChild(`Promise.reject(new Error('lost promise'));`);
    expect(r.status).toBe(FATAL_EXIT_CODE);
    expect(r.stderr).toMatch(/FATAL unhandled promise rejection/);
    expect(r.stderr).toContain('lost promise');
    expect(r.stdout).not.toContain('still running');
  });

  it('is installed by the serve host: runHeadless registers it for the life of the daemon', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { runHeadless } = await import('../../../main/headless');
    const root = mkdtempSync(join(tmpdir(), 'aep-last-resort-'));
    const before = process.listenerCount('uncaughtException');
    const lines: string[] = [];
    const running = runHeadless(
      { dataDir: join(root, 'data'), port: 0 },
      { out: (l) => lines.push(l), err: (l) => lines.push(l) },
    );
    try {
      while (!lines.some((l) => l.startsWith('AEP Companion listening')))
        await new Promise((r) => setImmediate(r));
      expect(process.listenerCount('uncaughtException')).toBe(before + 1);
      expect(process.listenerCount('unhandledRejection')).toBeGreaterThan(0);
    } finally {
      process.emit('SIGTERM');
      expect(await running).toBe(0);
      rmSync(root, { recursive: true, force: true });
    }
    expect(process.listenerCount('uncaughtException')).toBe(before);
  });
});
