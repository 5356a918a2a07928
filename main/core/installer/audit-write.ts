/** Audit rows for installer writes: who, from which surface, what changed, and the outcome. */
import type { InstallerEnv } from './installer-env';

/** Appends one installer row when the environment carries an audit sink. */
export function auditInstaller(
  env: InstallerEnv,
  action: 'installer.apply' | 'installer.uninstall',
  outcome: 'ok' | 'unchanged' | 'error',
  detail: Record<string, unknown>,
): void {
  env.audit?.append({
    actor: env.actor ?? 'operator',
    surface: env.surface ?? 'installer',
    action,
    session: null,
    commandId: null,
    outcome,
    detail,
  });
}
