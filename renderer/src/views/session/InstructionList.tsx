/** The session's instructions, each with the state the stream settled. */
import type { CommandPhase } from '../../model/command-settlement';
import type { InstructionItem } from '../../model/instructions';
import { formatMs } from '../../model/timeline';
import { Badge, type BadgeTone } from '../../ui/Badge';
import { clockTime } from '../../ui/format';

const PHASES: Record<CommandPhase, { tone: BadgeTone; label: string }> = {
  unsent: { tone: 'bad', label: 'not sent' },
  sent: { tone: 'neutral', label: 'sent' },
  timeout: { tone: 'warn', label: 'no answer' },
  refused: { tone: 'bad', label: 'refused' },
  rejected: { tone: 'bad', label: 'rejected' },
  accepted: { tone: 'pending', label: 'accepted' },
  delivered: { tone: 'ok', label: 'delivered' },
  dropped: { tone: 'bad', label: 'dropped' },
  answered: { tone: 'ok', label: 'answered' },
};

const DROP_REASONS: Record<string, string> = {
  'session-ended': 'the session ended before another eligible hook',
  'steering-disabled': 'steering was turned off',
  'session-idle': 'the session stayed idle past the expiry',
  'owner-changed': 'the companion took control of the session (launched or resumed): send it again there',
};

/** One line explaining the phase. */
export function phaseDetail(item: InstructionItem): string {
  const s = item.settlement;
  switch (s.phase) {
    case 'unsent':
      return 'Not connected to the daemon when you sent it; nothing left this window.';
    case 'sent':
      return 'Waiting for the daemon to acknowledge.';
    case 'timeout':
      return 'No acknowledgement within the ack window. It may still settle; nothing is assumed.';
    case 'refused':
      return `The relay refused it (${s.reason}${s.detail ? `: ${s.detail}` : ''}).`;
    case 'rejected':
      return `Rejected: ${s.reason ?? 'no reason given'}${s.detail ? ` (${s.detail})` : ''}.`;
    case 'accepted':
      return 'Queued: it will ride the reply to the next eligible hook.';
    case 'delivered':
      return `Handed to the agent in the ${s.moment ?? 'hook'} reply${s.queuedMs !== undefined ? ` after ${formatMs(s.queuedMs)} in the queue` : ''}.`;
    case 'dropped':
      return `Dropped: ${s.reason ? (DROP_REASONS[s.reason] ?? s.reason) : 'no reason given'}.`;
    case 'answered':
      return 'Answered.';
  }
}

/** The list. */
export function InstructionList({ items }: { items: readonly InstructionItem[] }) {
  if (items.length === 0) return <p className="muted small">No instructions sent to this session yet.</p>;
  return (
    <ol className="instructions" aria-label="Instructions">
      {items.map((item) => {
        const p = PHASES[item.settlement.phase];
        return (
          <li key={item.id} className="instruction" data-testid="instruction" data-phase={item.settlement.phase} data-command={item.id}>
            <div className="instruction-head">
              <Badge tone={p.tone} dot>
                {p.label}
                {item.settlement.phase === 'delivered' && item.settlement.moment ? ` at ${item.settlement.moment}` : ''}
                {item.settlement.phase === 'dropped' && item.settlement.reason ? ` (${item.settlement.reason})` : ''}
                {item.settlement.phase === 'rejected' && item.settlement.reason ? ` (${item.settlement.reason})` : ''}
              </Badge>
              <span className="muted small">
                {clockTime(item.sentAt)}
                {item.surface && item.surface !== 'console' ? ` · from ${item.surface}` : ''}
              </span>
            </div>
            <p className="instruction-text">{item.text ?? <span className="muted">(text not captured at this capture level)</span>}</p>
            <p className="instruction-detail small" data-testid="instruction-detail">{phaseDetail(item)}</p>
          </li>
        );
      })}
    </ol>
  );
}
