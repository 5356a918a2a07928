/** The on-demand bridge fetch: progress in the log, a clear one-line error offline, nothing half-installed left. */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeFetcher } from '../../../main/core/launched/bridge-fetch';
import { createLogger } from '../../../main/core/logger';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('BridgeFetcher', () => {
  it('offline: fails with a one-line reachability error, shows the npm lines, leaves no scratch folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aep-bridge-'));
    dirs.push(dataDir);
    const env = { ...process.env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0', npm_config_fetch_timeout: '2000', npm_config_cache: join(dataDir, 'npm-cache'), npm_config_offline: 'false' };
    const fetcher = new BridgeFetcher({ dataDir, env, logger: createLogger('test.bridge') });
    const spec = { package: '@agentclientprotocol/claude-agent-acp', version: '0.101.0', entry: 'dist/index.js' };
    expect(fetcher.status(spec)).toMatchObject({ state: 'absent', error: null });
    const first = fetcher.fetch(spec);
    // Concurrent callers share one fetch.
    expect(fetcher.fetch(spec)).toBe(first);
    expect(fetcher.status(spec).state).toBe('fetching');
    await expect(first).rejects.toThrow(/npm registry is not reachable \(offline\?\)/);
    const status = fetcher.status(spec);
    expect(status.state).toBe('failed');
    expect(status.error).toMatch(/^cannot fetch @agentclientprotocol\/claude-agent-acp@0\.101\.0: /);
    expect(status.log[0]).toBe('fetching @agentclientprotocol/claude-agent-acp@0.101.0');
    expect(status.log.length).toBeGreaterThan(2);
    expect(fetcher.entry(spec)).toBeNull();
    expect(existsSync(join(dataDir, 'agents')) ? readdirSync(join(dataDir, 'agents')) : []).toEqual([]);
  });
});
