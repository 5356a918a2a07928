/** Launched by the companion, or observed through the agent's hooks. */
import { Badge } from '../../ui/Badge';

/** The badge. */
export function LaunchBadge({ launched }: { launched: boolean }) {
  return (
    <span data-testid="launch-badge" data-launched={launched ? 'true' : 'false'} title={launched ? 'Started from the companion: it sends the prompts, answers permissions and can cancel.' : 'Started elsewhere; the companion sees it through the agent’s hooks.'}>
      <Badge tone={launched ? 'accent' : 'muted'}>{launched ? 'launched' : 'observed'}</Badge>
    </span>
  );
}
