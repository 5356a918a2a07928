/** A launched session's steering badge, in the daemon's words (derived from the live connection). */
import type { LaunchedSessionInfo } from '../../../../common/agents';
import { Badge } from '../../ui/Badge';

/** The badge. */
export function LaunchedSteerBadge({ info }: { info: LaunchedSessionInfo }) {
  const ended = info.state === 'ended' || info.state === 'resumable';
  const label = ended ? (info.state === 'resumable' ? 'ended · resumable' : 'session ended') : (info.steer?.badge ?? 'next turn');
  return (
    <span className="steerability" data-testid="launched-steer" data-mode={ended ? 'ended' : (info.steer?.mode ?? 'unknown')} title={info.steer?.reason ?? (info.endReason ? `Ended: ${info.endReason}` : undefined)}>
      <Badge tone={ended ? 'muted' : info.steer?.supports_steering ? 'accent' : 'neutral'}>{label}</Badge>
    </span>
  );
}
