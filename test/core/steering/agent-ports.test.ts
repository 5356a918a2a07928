/**
 * The shared agent ports: built once per daemon context, the same parts for every feature holding
 * them (one kill switch: one audit row per flip, heard by both transports), the injected clock
 * used when one is given, and closed once, when the last holder lets go.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import { acquireAgentPorts } from '../../../main/core/steering/agent-ports';
import { createAgentsFeature } from '../../../main/core/launched/launched-feature';
import { createHooksFeature } from '../../../main/core/hooks/hooks-feature';

let daemon: DaemonHandle | null = null;
let dir: string | null = null;
afterEach(async () => {
  await daemon?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  daemon = null;
  dir = null;
});

async function start(features: Parameters<typeof startDaemon>[0]['baseFeatures'] = []): Promise<DaemonHandle> {
  dir = mkdtempSync(join(tmpdir(), 'aep-ports-'));
  daemon = await startDaemon({ dataDir: join(dir, 'data'), port: 0, baseFeatures: features });
  return daemon;
}

const flips = (d: DaemonHandle) => d.context.audit.query({ action: 'steering.enabled' }).rows;

describe('agent ports', () => {
  it('are one set per daemon: both leases hold the same parts, and they close after the last release', async () => {
    const d = await start();
    const a = acquireAgentPorts(d.context);
    const b = acquireAgentPorts(d.context);
    expect(b.ports).toBe(a.ports);
    const heard: boolean[] = [];
    a.ports.killSwitch.onFlip((on) => heard.push(on));
    a.release();
    a.release(); // a second release of the same lease counts once
    d.context.settings.set({ 'features.steering': true });
    expect(heard).toEqual([true]);
    expect(flips(d)).toHaveLength(1);
    b.release();
    d.context.settings.set({ 'features.steering': false });
    d.context.settings.set({ 'features.steering': true });
    // Closed: no listener hears the flip and no audit row is written for it by the ports.
    expect(heard).toEqual([true]);
    expect(flips(d)).toHaveLength(1);
    // A later holder gets a fresh set.
    const c = acquireAgentPorts(d.context);
    expect(c.ports).not.toBe(a.ports);
    c.release();
  });

  it('use the injected clock when a feature gives one, and refuse a second, different clock', async () => {
    const d = await start();
    const at = Date.parse('2026-03-04T05:06:07.000Z');
    const clock = () => at;
    const first = acquireAgentPorts(d.context);
    const timed = acquireAgentPorts(d.context, clock);
    expect(first.ports.clock()).toBe(at);
    expect(() => acquireAgentPorts(d.context, () => at + 1)).toThrow(/different clocks/);
    first.ports.killSwitch.set(true, { actor: 'operator', surface: 'cli' });
    expect(flips(d)[0]).toMatchObject({ time: '2026-03-04T05:06:07.000Z', surface: 'cli' });
    first.release();
    timed.release();
  });

  it('serve both features of a running daemon: one kill switch, so a flip through /api is audited once', async () => {
    const d = await start([createHooksFeature({ sweepEveryMs: 0 }), createAgentsFeature({ endBoundMs: 1_000 })]);
    const res = await fetch(`${d.url}/api/steering`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${d.tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
    expect(res.status).toBe(200);
    expect(flips(d)).toHaveLength(1);
    const lease = acquireAgentPorts(d.context);
    expect(lease.ports.killSwitch.enabled).toBe(true);
    lease.release();
  });
});
