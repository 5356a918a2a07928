/** One-click repair: reinstall every install whose HTTP hooks name another port, for the running daemon. */
import type { RepairResult } from '../../../common/api';
import { applyInstall } from './apply-install';
import { hookPortMismatches } from './hook-ports';
import type { InstallerEnv } from './installer-env';
import { readManifest } from './manifest';

/** Reinstalls every mismatched install with its recorded options, for the daemon at `env.daemonUrl`. */
export async function repairHookPorts(env: InstallerEnv): Promise<RepairResult> {
  const mismatches = await hookPortMismatches(env);
  const manifest = await readManifest(env);
  const reinstalled: RepairResult['reinstalled'][number][] = [];
  const failed: RepairResult['failed'][number][] = [];
  const done = new Set<string>();
  for (const m of mismatches) {
    const key = `${m.vendor}\0${m.scope}\0${m.project ?? ''}`;
    if (done.has(key)) continue;
    done.add(key);
    const record = manifest.ok
      ? manifest.value.installs.find(
          (i) => i.vendor === m.vendor && i.scope === m.scope && (i.project ?? null) === m.project,
        )
      : undefined;
    const applied = await applyInstall(
      {
        vendor: m.vendor,
        scope: m.scope,
        ...(m.project ? { project: m.project } : {}),
        instruct: record?.instruct ?? false,
        permissions: record?.permissions ?? false,
        transport: record?.transport ?? 'http',
      },
      env,
    );
    if (applied.ok) reinstalled.push(applied.value);
    else
      failed.push({
        vendor: m.vendor,
        scope: m.scope,
        project: m.project,
        error: applied.error.message,
      });
  }
  return { reinstalled, failed };
}
