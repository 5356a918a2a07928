import { exampleMoments, steerabilityHelp, steerabilityLabel, type Steerability } from '../../model/session-rows';
import { Badge, type BadgeTone } from '../../ui/Badge';

const TONES: Record<Steerability['kind'], BadgeTone> = { ready: 'accent', off: 'muted', 'not-opted-in': 'muted', ended: 'muted', 'unknown-vendor': 'muted', released: 'warn', checking: 'muted' };

/** The short badge text; the full sentence is the label and the tooltip. */
function shortLabel(s: Steerability): string {
  if (s.kind === 'not-opted-in') return 'not opted in';
  if (s.kind !== 'ready') return steerabilityLabel(s);
  return s.idle ? 'next hook (agent idle)' : 'next hook';
}

/**
 * The honest steerability badge, read from the relay's live roster, in words with what to do:
 * the example moments of a steerable session, or the way out of a blocked one.
 */
export function SteerabilityBadge({ steerability, compact }: { steerability: Steerability; compact?: boolean }) {
  const s = steerability;
  const moments = s.kind === 'ready' && !s.idle && s.moments.length > 0;
  return (
    <span className="steerability" data-testid="steerability" data-kind={s.kind} data-idle={s.kind === 'ready' && s.idle ? 'true' : undefined} title={steerabilityHelp(s)} aria-label={steerabilityLabel(s)}>
      <Badge tone={TONES[s.kind]}>{shortLabel(s)}</Badge>
      {!compact && moments ? <span className="steerability-moments">(e.g. {exampleMoments(s.kind === 'ready' ? s.moments : []).join(', ')})</span> : null}
      {!compact && s.kind === 'ready' && s.idle ? <span className="steerability-moments">reaches it when its next prompt starts</span> : null}
      {!compact && s.kind === 'not-opted-in' ? (
        <a className="steerability-moments" href="#/setup" onClick={(e) => e.stopPropagation()}>
          reinstall with steering
        </a>
      ) : null}
      {!compact && s.kind === 'released' ? <span className="steerability-moments">comes back at its next hook</span> : null}
    </span>
  );
}
