import type { SessionPhase } from '../../model/session-rows';
import { Badge, type BadgeTone } from '../../ui/Badge';

const PHASES: Record<SessionPhase, { tone: BadgeTone; label: string }> = {
  working: { tone: 'ok', label: 'working' },
  waiting: { tone: 'warn', label: 'waiting for approval' },
  idle: { tone: 'neutral', label: 'idle' },
  ended: { tone: 'muted', label: 'ended' },
};

/** The session state pill. */
export function PhaseBadge({ phase }: { phase: SessionPhase }) {
  const p = PHASES[phase];
  return (
    <span data-testid="session-state" data-phase={phase}>
      <Badge tone={p.tone} dot>
        {p.label}
      </Badge>
    </span>
  );
}
