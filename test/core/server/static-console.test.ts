import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { http, startTestDaemon, type TestDaemon } from '../relay/harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

function builtConsole(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aep-console-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
  return dir;
}

describe('static console', () => {
  it('serves the built console at / without a token, with a CSP whose connect-src is only the daemon origin', async () => {
    d = await startTestDaemon({ consoleDir: builtConsole() });
    const index = await http(d.url, { path: '/' });
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.text).toContain('<title>console</title>');
    const csp = String(index.headers['content-security-policy']);
    const connect = csp
      .split(';')
      .map((s) => s.trim())
      .find((s) => s.startsWith('connect-src'))!;
    expect(connect.split(/\s+/).slice(1).sort()).toEqual(
      [
        "'self'",
        `http://127.0.0.1:${d.port}`,
        `http://localhost:${d.port}`,
        `ws://127.0.0.1:${d.port}`,
        `ws://localhost:${d.port}`,
      ].sort(),
    );
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    const js = await http(d.url, { path: '/assets/app.js' });
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
  });

  it('falls back to index.html for client routes and refuses paths outside the console directory', async () => {
    d = await startTestDaemon({ consoleDir: builtConsole() });
    expect((await http(d.url, { path: '/sessions/abc' })).text).toContain('<title>console</title>');
    for (const path of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd']) {
      expect((await http(d.url, { path })).text, path).not.toContain('root:');
    }
    expect((await http(d.url, { path: '/..%2f..%2f..%2fetc%2fpasswd' })).status).toBe(404);
    expect((await http(d.url, { path: '/missing.js' })).status).toBe(404);
  });

  it('still protects the API when the console is served', async () => {
    d = await startTestDaemon({ consoleDir: builtConsole() });
    expect((await http(d.url, { path: '/api/status' })).status).toBe(401);
  });
});
