/**
 * A launched session's messages (`x.{agent}.control.send_input`) with the state the stream
 * settled: Steered, Queued, Sent as next prompt (also a deferred steer: it reads like a queued message arriving), Errored — not re-sent, Dropped
 * (reason). Only stream events decide (the ack, `input.queued`, `input.sent`, `input.settled`,
 * `input.dropped`, all cause-linked to the command); this window's own record only says whether
 * the command left it at all. A steer the agent showed it took in (`input.received`, Codex's
 * `userMessage` item) reads "Steered · seen by agent". A message edited while queued shows its
 * edited text (`input.edited`, when the capture level carries it).
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { InputOutcome } from '../../../common/agent-inputs';
import type { SentCommand } from './command-sender';
import { dataString } from './event-types';

const SEND_INPUT = /^x\.([a-z0-9-]+)\.control\.send_input$/;
/** The stream's events about one input (cause = the command). */
export const INPUT_EVENT = /^x\.([a-z0-9-]+)\.input\.(queued|sent|settled|dropped|accepted|rejected|admitted|withdrawn|edited|reordered|received)$/;

/** True for the user-plane input verb of a launched session. */
export const isSendInput = (type: string): boolean => SEND_INPUT.test(type);

/** The chip a message shows. */
export type InputPhase = 'unsent' | 'sending' | 'refused' | 'rejected' | 'queued' | 'sent' | 'steered' | 'prompted' | 'errored' | 'dropped';

/** One message with its settled state. */
export interface InputItem {
  readonly id: string;
  readonly text: string | null;
  readonly delivery: string;
  readonly sentAt: string;
  readonly phase: InputPhase;
  readonly label: string;
  readonly tone: 'ok' | 'warn' | 'bad' | 'pending' | 'neutral' | 'accent';
  /** The outcome as the stream named it (null until settled). */
  readonly outcome: InputOutcome | string | null;
  readonly reason: string | null;
  /** The agent itself showed it took the steer in (`input.received`). */
  readonly seen?: boolean;
}

const OUTCOME: Record<string, { phase: InputPhase; label: (reason: string | null) => string; tone: InputItem['tone'] }> = {
  steered: { phase: 'steered', label: () => 'Steered', tone: 'ok' },
  // The agent ran it as its own next turn: it reads exactly like a queued message arriving.
  deferred: { phase: 'prompted', label: () => 'Sent as next prompt', tone: 'accent' },
  degraded: { phase: 'prompted', label: () => 'Sent as next prompt', tone: 'accent' },
  prompted: { phase: 'prompted', label: () => 'Sent as next prompt', tone: 'accent' },
  errored: { phase: 'errored', label: () => 'Errored — not re-sent', tone: 'bad' },
  interrupted: { phase: 'errored', label: () => 'Errored — not re-sent (daemon restarted mid-send)', tone: 'bad' },
  failed: { phase: 'errored', label: (r) => `Errored — not re-sent${r ? ` (${r})` : ''}`, tone: 'bad' },
  cancelled: { phase: 'dropped', label: () => 'Dropped (turn cancelled)', tone: 'warn' },
  dropped: { phase: 'dropped', label: (r) => `Dropped (${r ?? 'no reason given'})`, tone: 'warn' },
};

/** Settles one message from the events caused by it, in stream order. */
export function settleInput(caused: readonly AepEvent[], local: { sent: boolean; refusal?: { code: string; detail?: string } } | null): Pick<InputItem, 'phase' | 'label' | 'tone' | 'outcome' | 'reason' | 'seen'> {
  let state: Pick<InputItem, 'phase' | 'label' | 'tone' | 'outcome' | 'reason'> = local && !local.sent
    ? { phase: 'unsent', label: 'Not sent (not connected)', tone: 'bad', outcome: null, reason: null }
    : local?.refusal
      ? { phase: 'refused', label: `Refused by the relay (${local.refusal.code})`, tone: 'bad', outcome: null, reason: local.refusal.detail ?? null }
      : { phase: 'sending', label: 'Sending…', tone: 'neutral', outcome: null, reason: null };
  let settled = false;
  let seen = false;
  for (const e of caused) {
    const t = e.type;
    if (t === 'control.rejected') {
      const reason = dataString(e, 'reason') ?? null;
      state = { phase: 'rejected', label: `Rejected (${dataString(e, 'detail') ?? reason ?? 'no reason'})`, tone: 'bad', outcome: null, reason };
      settled = true;
      continue;
    }
    if (/^x\.[a-z0-9-]+\.input\.received$/.test(t)) {
      seen = true;
      continue;
    }
    if (settled) continue;
    if (t === 'control.accepted' && state.phase === 'sending') state = { ...state, label: 'Accepted', tone: 'neutral' };
    const m = INPUT_EVENT.exec(t);
    if (!m) continue;
    const kind = m[2];
    const reason = dataString(e, 'reason') ?? null;
    if (kind === 'queued') state = { phase: 'queued', label: 'Queued', tone: 'pending', outcome: null, reason };
    else if (kind === 'sent') state = { phase: 'sent', label: 'Sent to the agent', tone: 'neutral', outcome: null, reason: null };
    else if (kind === 'dropped') {
      state = { phase: 'dropped', label: `Dropped (${reason ?? 'no reason given'})`, tone: 'warn', outcome: 'dropped', reason };
      settled = true;
    } else if (kind === 'settled') {
      const outcome = dataString(e, 'outcome') ?? 'unknown';
      const o = OUTCOME[outcome];
      state = o ? { phase: o.phase, label: o.label(reason), tone: o.tone, outcome, reason } : { phase: 'sent', label: `Settled (${outcome})`, tone: 'neutral', outcome, reason };
      settled = true;
    }
  }
  return seen && state.phase === 'steered' ? { ...state, label: 'Steered · seen by agent', seen: true } : state;
}

/** The session's messages, oldest first: from the stream (any window) and this window's sends. */
export function inputItems(session: string, fleet: readonly AepEvent[], commands: ReadonlyMap<string, SentCommand>, caused: (id: string) => readonly AepEvent[]): InputItem[] {
  const items = new Map<string, InputItem>();
  const add = (id: string, text: string | null, delivery: string, sentAt: string, local: SentCommand | null) => {
    const events = caused(id);
    // An edit before sending replaced the text the agent receives (its event carries it when captured).
    const edited = events.filter((e) => /^x\.[a-z0-9-]+\.input\.edited$/.test(e.type)).map((e) => dataString(e, 'text')).filter((t) => t !== undefined).pop();
    items.set(id, { id, text: edited ?? text, delivery, sentAt, ...settleInput(events, local) });
  };
  for (const e of fleet) {
    if (!isSendInput(e.type) || e.session !== session) continue;
    add(e.id, dataString(e, 'text') ?? null, dataString(e, 'delivery') ?? 'queue', e.time, commands.get(e.id) ?? null);
  }
  for (const c of commands.values()) {
    if (c.session !== session || !isSendInput(c.type) || items.has(c.id)) continue;
    add(c.id, c.text ?? null, c.delivery ?? 'queue', c.sentAt, c);
  }
  return [...items.values()].sort((a, b) => (a.sentAt < b.sentAt ? -1 : a.sentAt > b.sentAt ? 1 : 0));
}
