import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { steeringFixture, type SteeringFixture } from './steering-fixture';

let f: SteeringFixture;
beforeEach(() => {
  f = steeringFixture();
});
afterEach(() => f.close());

describe('KillSwitch', () => {
  it('is off by default', () => {
    expect(f.killSwitch.state()).toEqual({ enabled: false });
  });

  it('persists a flip and audits it with actor and surface', () => {
    expect(f.killSwitch.set(true, { actor: 'operator', surface: 'tray' })).toEqual({ ok: true, value: { enabled: true } });
    expect(f.settings.get('features.steering')).toBe(true);
    const [row] = f.audit.query({ action: 'steering.enabled' }).rows;
    expect(row).toMatchObject({ actor: 'operator', surface: 'tray', outcome: 'ok' });
  });

  it('tells its listeners at once, with the origin of the flip', () => {
    const heard: unknown[] = [];
    f.killSwitch.onFlip((enabled, by) => heard.push([enabled, by.surface]));
    f.killSwitch.set(true, { actor: 'operator', surface: 'cli' });
    f.killSwitch.set(false, { actor: 'operator', surface: 'console' });
    expect(heard).toEqual([
      [true, 'cli'],
      [false, 'console'],
    ]);
  });

  it('audits a flip made through a plain settings write as the operator over /api', () => {
    f.settings.set({ 'features.steering': true });
    expect(f.audit.query({ action: 'steering.enabled' }).rows[0]).toMatchObject({ actor: 'operator', surface: 'api' });
  });

  it('audits a request that changes nothing as unchanged', () => {
    f.killSwitch.set(false, { actor: 'operator', surface: 'cli' });
    expect(f.audit.query({ action: 'steering.disabled' }).rows[0]).toMatchObject({ outcome: 'unchanged', surface: 'cli' });
  });

  it('refuses a value that is not a boolean', () => {
    expect(f.killSwitch.set('yes', { actor: 'operator', surface: 'api' })).toMatchObject({ ok: false, error: { code: 'invalid-request' } });
    expect(f.settings.get('features.steering')).toBe(false);
  });
});
