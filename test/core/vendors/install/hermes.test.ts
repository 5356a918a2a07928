import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { InstallOptions } from '../../../../common/api';
import { applyInstall, planInstall, uninstall } from '../../../../main/core/installer';
import {
  fixture,
  makeTestEnv,
  put,
  roundTrip,
  textOrNull,
  unwrap,
  type TestEnv,
} from '../../installer/installer-test-env';

const base: InstallOptions = {
  vendor: 'hermes',
  scope: 'user',
  instruct: false,
  permissions: false,
};
let t: TestEnv;
beforeEach(async () => {
  t = await makeTestEnv();
});
afterEach(async () => {
  await t.cleanup();
});

type Config = {
  hooks: Record<string, Array<{ command: string; timeout?: number; matcher?: string }>>;
} & Record<string, unknown>;

describe('hermes installer', () => {
  it('round-trips a commented config.yaml, keeping comments, outbound webhooks and the user hook first', async () => {
    const original = await fixture('hermes/config.yaml');
    const path = join(t.env.home, '.hermes', 'config.yaml');
    const { installed, plan } = await roundTrip(t, { ...base, instruct: true }, path, original);
    // Nothing of the user's is re-printed: comment spacing and flow lists stay byte for byte.
    expect(installed).toContain('default: anthropic/claude-sonnet-4   # the everyday model');
    expect(installed).toContain('command: "~/.hermes/agent-hooks/block-rm.sh"   # keep me');
    expect(
      installed.startsWith(original.slice(0, original.indexOf('      timeout: 5\n') + 17)),
    ).toBe(true);
    expect(installed).toContain('# notify-only webhooks stay as they are');
    const config = parse(installed) as Config;
    const before = parse(original) as Config;
    expect(config.hooks.outbound).toEqual(before.hooks.outbound);
    expect(config.display).toEqual(before.display);
    expect(config.hooks.pre_tool_call[0]).toEqual(before.hooks.pre_tool_call[0]);
    expect(config.hooks.pre_tool_call[1]).toEqual({
      command: `env AEP_INSTRUCT=1 ${join(t.env.dataDir, 'bin', 'aep-companion-hook')} hermes`,
      timeout: 10,
    });
    expect(config.hooks.on_session_finalize).toHaveLength(1);
    expect(plan.retrustRequired).toBe(true);
    expect(plan.warnings.join('\n')).toMatch(/approve the AEP Companion hooks/);
  });

  it('adds a hooks block to a config without one, and to an empty or missing file', async () => {
    const path = join(t.env.home, '.hermes', 'config.yaml');
    const { installed } = await roundTrip(
      t,
      base,
      path,
      await fixture('hermes/config-no-hooks.yaml'),
    );
    expect(installed).toContain('# hooks will be added below by tools that need them');
    await roundTrip(t, base, path, '');
    await rm(path);
    await roundTrip(t, base, path, null);
  });

  it('falls back to the YAML printer for flow-style hooks and still round-trips', async () => {
    const path = join(t.env.home, '.hermes', 'config.yaml');
    const { installed } = await roundTrip(
      t,
      base,
      path,
      await fixture('hermes/config-auto-accept.yaml'),
    );
    expect((parse(installed) as Config).hooks.on_session_start).toHaveLength(1);
  });

  it('toggles the opt-in in place (the vendor asks again) and edits only our lines', async () => {
    const path = join(t.env.home, '.hermes', 'config.yaml');
    const original = await fixture('hermes/config.yaml');
    await put(path, original);
    unwrap(await applyInstall(base, t.env));
    const first = (await textOrNull(path)) as string;
    const toggled = unwrap(await applyInstall({ ...base, instruct: true }, t.env));
    expect(toggled.retrustRequired).toBe(true);
    const second = (await textOrNull(path)) as string;
    expect(second).toBe(first.replaceAll('command: /', 'command: env AEP_INSTRUCT=1 /'));
    unwrap(await uninstall({ vendor: 'hermes', scope: 'user' }, t.env));
    expect(await textOrNull(path)).toBe(original);
  });

  it('honours HERMES_HOME (one profile per home)', async () => {
    const profile = join(t.root, 'profiles', 'work');
    t = { ...t, env: { ...t.env, vars: { HERMES_HOME: profile } } };
    await roundTrip(t, base, join(profile, 'config.yaml'), 'model:\n  default: x\n');
  });

  it('removes only our items when the user changed the file after install', async () => {
    const path = join(t.env.home, '.hermes', 'config.yaml');
    const original = await fixture('hermes/config.yaml');
    await put(path, original);
    unwrap(await applyInstall(base, t.env));
    await put(path, `${(await textOrNull(path)) as string}extra: 1\n`);
    unwrap(await uninstall({ vendor: 'hermes', scope: 'user' }, t.env));
    // Exactly our lines are gone: the user's bytes, comments and later edit stay as they are.
    expect(await textOrNull(path)).toBe(`${original}extra: 1\n`);
  });

  it('has no project scope', async () => {
    const planned = await planInstall({ ...base, scope: 'project', project: t.root }, t.env);
    expect(planned.ok ? 'ok' : planned.error.code).toBe('unsupported-scope');
  });

  it('refuses corrupt YAML and leaves it untouched', async () => {
    const path = join(t.env.home, '.hermes', 'config.yaml');
    const corrupt = await fixture('hermes/config-corrupt.yaml');
    await put(path, corrupt);
    const applied = await applyInstall(base, t.env);
    expect(applied.ok ? 'ok' : applied.error.code).toBe('corrupt-config');
    expect(await textOrNull(path)).toBe(corrupt);
  });

  it('gives the gated pre_tool_call a timeout above the hold window with the permission opt-in', async () => {
    const path = join(t.env.home, '.hermes', 'config.yaml');
    unwrap(await applyInstall({ ...base, permissions: true }, t.env));
    const config = parse((await textOrNull(path)) as string) as Config;
    expect(config.hooks.pre_tool_call[0]).toEqual({
      command: `env AEP_PERMISSIONS=1 ${join(t.env.dataDir, 'bin', 'aep-companion-hook')} hermes`,
      timeout: 90,
    });
  });

  it('notes auto-accept instead of the consent prompt when the profile has it on', async () => {
    await put(
      join(t.env.home, '.hermes', 'config.yaml'),
      await fixture('hermes/config-auto-accept.yaml'),
    );
    const plan = unwrap(await planInstall(base, t.env));
    expect(plan.warnings.join('\n')).toContain('hooks_auto_accept is on');
  });
});
