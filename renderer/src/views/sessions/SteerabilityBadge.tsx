import { exampleMoments, steerabilityHelp, steerabilityLabel, type Steerability } from '../../model/session-rows';
import { Badge, type BadgeTone } from '../../ui/Badge';

const TONES: Record<Steerability['kind'], BadgeTone> = { ready: 'accent', off: 'muted', 'not-opted-in': 'muted', ended: 'muted', 'unknown-vendor': 'muted' };

/** The honest steerability badge; for a steerable session the example moments sit beneath it. */
export function SteerabilityBadge({ steerability, compact }: { steerability: Steerability; compact?: boolean }) {
  const ready = steerability.kind === 'ready' && steerability.moments.length > 0;
  return (
    <span className="steerability" data-testid="steerability" data-kind={steerability.kind} title={steerabilityHelp(steerability)} aria-label={steerabilityLabel(steerability)}>
      <Badge tone={TONES[steerability.kind]}>{ready ? 'delivered at the next hook' : steerabilityLabel(steerability)}</Badge>
      {ready && !compact ? <span className="steerability-moments">(e.g. {exampleMoments(steerability.kind === 'ready' ? steerability.moments : []).join(', ')})</span> : null}
    </span>
  );
}
