/**
 * One attention request with its answer affordances: option buttons (Allow / Deny for
 * permissions), a free-text reply, or a form. The card's state comes from the stream; the
 * answer the operator sent is shown as sent until the stream settles it.
 */
import { useState } from 'react';
import { isAgentId } from '../../../../common/agents';
import { VENDOR_NAMES, isVendorId } from '../../../../common/vendors';
import type { AttentionItem } from '../../model/attention-items';
import { settle } from '../../model/command-settlement';
import type { SentCommand } from '../../model/console-store';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { Badge } from '../../ui/Badge';
import { shortPath } from '../../ui/format';
import { RelativeTime } from '../../ui/RelativeTime';
import { useSecondClock } from '../../ui/use-now';
import { FormFields, missingRequired, type FormValues } from './FormFields';

const PERMISSIVE = /^(allow|approve|yes|accept|ok)/i;

/**
 * When the agent's hook stops waiting: the request's own `expires_at`, else, for a permission
 * held by a vendor hook or a launched agent, its time plus the permission hold
 * (`permissions.holdMs`, the one setting both loops hold for).
 */
export function requestDeadline(item: AttentionItem, holdMs: number | null): number {
  if (item.expiresAt) return Date.parse(item.expiresAt);
  const agent = item.request.agent;
  if (item.kind === 'permission' && holdMs !== null && agent && (isVendorId(agent) || isAgentId(agent))) return Date.parse(item.request.time) + holdMs;
  return NaN;
}

function Countdown({ deadline }: { deadline: number }) {
  const now = useSecondClock();
  const left = Math.max(0, Math.ceil((deadline - now) / 1000));
  const label = left > 0 ? `hook gives up in ${left >= 60 ? `${Math.floor(left / 60)} min ${left % 60} s` : `${left} s`}` : 'hook giving up…';
  return (
    <span data-testid="attention-countdown" data-seconds={left}>
      <Badge tone={left <= 10 ? 'bad' : 'warn'} title="The agent's hook stops waiting at this moment and falls back to its own prompt">
        {label}
      </Badge>
    </span>
  );
}

function optionTone(id: string): string {
  if (PERMISSIVE.test(id)) return 'btn-primary';
  if (/^(deny|reject|no|decline|block)/i.test(id)) return 'btn-danger-soft';
  return '';
}

/** The card. */
export function AttentionCard({ item, cwd, showSession }: { item: AttentionItem; cwd?: string | null; showSession?: boolean }) {
  const { store } = useConsole();
  useStoreAreas('commands', 'fleet');
  const [text, setText] = useState('');
  const [values, setValues] = useState<FormValues>({});
  const [sent, setSent] = useState<SentCommand | null>(null);
  const r = item.request;
  const settlement = sent ? settle(store.caused(sent.id), { sent: sent.sent, timedOut: sent.timedOut, refusal: sent.refusal }) : null;
  const inFlight = settlement !== null && (settlement.phase === 'sent' || settlement.phase === 'accepted');
  const open = item.state === 'open';
  useStoreAreas('status');
  const expires = requestDeadline(item, store.settings?.['permissions.holdMs'] ?? null);
  const missing = missingRequired(item.fields, values);
  const vendorName = r.agent && isVendorId(r.agent) ? VENDOR_NAMES[r.agent] : r.agent;

  const respond = (answer: { option?: string; text?: string; values?: FormValues }) => setSent(store.respondAttention(r, answer));

  return (
    <article className={`card attention attention-${item.state}`} data-testid="attention-card" data-request={r.id} data-state={item.state} aria-label={`${item.kind} request from ${vendorName}`}>
      <header className="card-head">
        <Badge tone={item.kind === 'permission' ? 'warn' : 'accent'}>{item.kind}</Badge>
        <span className="card-meta">
          {vendorName}
          {showSession ? (
            <>
              {' · '}
              <a href={`#/sessions/${encodeURIComponent(r.session ?? '')}`} className="mono" title={r.session}>
                {cwd ? shortPath(cwd) : (r.session ?? '').slice(0, 12)}
              </a>
            </>
          ) : null}
          {' · '}
          <RelativeTime iso={r.time} />
        </span>
        <span className="card-state">
          {item.state === 'open' ? (
            Number.isFinite(expires) ? (
              <Countdown deadline={expires} />
            ) : (
              <Badge tone="warn" dot>waiting</Badge>
            )
          ) : (
            <span data-testid="attention-outcome" data-state={item.state}>
              <Badge tone={item.outcome.tone} title={item.state === 'timeout' ? 'Nobody answered in time; the agent fell back to its own prompt' : undefined}>
                {item.outcome.label}
              </Badge>
            </span>
          )}
        </span>
      </header>
      <p className="attention-prompt">{item.prompt}</p>
      {!item.answerable && open ? <p className="small muted">This request is answered in the agent's own interface; it is shown here for information.</p> : null}
      {open && item.answerable ? (
        <div className="attention-actions">
          {item.fields.length > 0 ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (missing.length === 0) respond({ values });
              }}
            >
              <FormFields fields={item.fields} values={values} onChange={setValues} idPrefix={`f-${r.id}`} />
              <div className="row-actions">
                <button type="submit" className="btn btn-primary" disabled={inFlight || missing.length > 0}>Submit answer</button>
                {missing.length > 0 ? <span className="small muted">Required: {missing.join(', ')}</span> : null}
              </div>
            </form>
          ) : (
            <>
              <div className="row-actions">
                {(item.options.length ? item.options : item.kind === 'permission' ? [{ id: 'allow', label: 'Allow' }, { id: 'deny', label: 'Deny' }] : []).map((o) => (
                  <button key={o.id} type="button" className={`btn ${optionTone(o.id)}`} disabled={inFlight} onClick={() => respond({ option: o.id })} data-testid={`answer-${o.id}`}>
                    {o.label}
                  </button>
                ))}
              </div>
              <form
                className="reply"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (text.trim()) respond({ text: text.trim() });
                }}
              >
                <input className="input" aria-label="Reply with text" placeholder={item.kind === 'permission' ? 'Or reply with text (a reason denies the request)…' : 'Reply with text…'} value={text} onChange={(e) => setText(e.target.value)} />
                <button type="submit" className="btn" disabled={inFlight || !text.trim()}>Reply</button>
              </form>
            </>
          )}
        </div>
      ) : null}
      {settlement ? (
        <p className="small attention-sent" data-testid="answer-state" data-phase={settlement.phase}>
          {settlement.phase === 'sent' && 'Answer sent; waiting for the agent’s adapter to acknowledge.'}
          {settlement.phase === 'accepted' && 'Answer accepted; waiting for the hook reply.'}
          {settlement.phase === 'answered' && `The hook replied with your answer${settlement.reason ? ` (${settlement.reason})` : ''}.`}
          {settlement.phase === 'rejected' && `Answer rejected: ${settlement.reason ?? 'no reason'}${settlement.detail ? ` (${settlement.detail})` : ''}.`}
          {settlement.phase === 'refused' && `The relay refused the answer (${settlement.reason}${settlement.detail ? `: ${settlement.detail}` : ''}).`}
          {settlement.phase === 'timeout' && 'No acknowledgement within the ack window.'}
          {settlement.phase === 'unsent' && 'Not connected: the answer was not sent.'}
        </p>
      ) : null}
    </article>
  );
}
