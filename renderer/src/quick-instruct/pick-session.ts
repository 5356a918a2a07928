/** Which session the quick-instruct window targets: the asked-for one, else the most recent steerable one. */
import type { SessionRow } from '../model/session-rows';
import { steerabilityLabel } from '../model/session-rows';
import { shortPath } from '../ui/format';
import { VENDOR_NAMES } from '../../../common/vendors';

/** Sessions worth offering: everything not ended, most recent activity first (rows arrive sorted). */
export function liveRows(rows: readonly SessionRow[]): SessionRow[] {
  return rows.filter((r) => r.phase !== 'ended');
}

/** The default target: the most recent steerable live session, else the most recent live one, else null. */
export function defaultSession(rows: readonly SessionRow[]): string | null {
  const live = liveRows(rows);
  return (live.find((r) => r.steerability.kind === 'ready') ?? live[0])?.summary.session ?? null;
}

/** The option label of a session: agent, project, and whether it can be steered. */
export function sessionLabel(row: SessionRow): string {
  const s = row.summary;
  const who = s.vendor ? VENDOR_NAMES[s.vendor] : s.agent;
  const where = s.cwd ? shortPath(s.cwd) : s.session.slice(0, 8);
  const how = row.steerability.kind === 'ready' ? 'steerable' : steerabilityLabel(row.steerability);
  return `${who} · ${where} · ${how}`;
}
