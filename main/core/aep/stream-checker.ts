/**
 * Cross-event rules of one emitter's stream, in emission order: id uniqueness per source (AEP-0001 §7.4), position
 * monotonicity (§7.2), terminal exclusivity (AEP-0002 §2 convention 5), closing attention requests before
 * `session.ended` (AEP-0002 §7.2), one ack decision per command (AEP-0004 §3), and the form-answer rule (§5.3).
 */
import { captureRank, type AepEvent } from '../../../common/aep/envelope';
import { err, ok, type Result } from '../../../common/result';
import { canonicalJson } from './content-digest';
import type { FieldSpec } from './form-values';
import { validateEvent } from './validate-event';

type Verdict = Result<void, 'invalid-stream'>;
const invalid = (message: string): Verdict => err('invalid-stream', message);

const RUN_TERMINALS = new Set(['run.finished', 'run.failed', 'run.cancelled']);
const ATTENTION_TERMINALS = new Set(['attention.resolved', 'attention.timeout']);
const ACKS = new Set(['control.accepted', 'control.rejected']);

const key = (...parts: ReadonlyArray<string | number | undefined>): string =>
  parts.map((p) => String(p ?? '')).join('\u0000');
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a stream event by event; a redelivered event (same source, id and content) is accepted and skipped. */
export class StreamChecker {
  private readonly seen = new Map<string, string>();
  private readonly positions = new Map<string, { epoch: number; seq: number }>();
  private readonly terminals = new Map<string, string>();
  private readonly pending = new Map<string, Set<string>>();
  private readonly forms = new Map<string, readonly FieldSpec[]>();

  /** Validates `event` alone, then against what this stream already carried. */
  check(event: AepEvent): Verdict {
    const single = validateEvent(event);
    if (!single.ok) return invalid(single.error.message);
    const text = canonicalJson(event);
    const idKey = key(event.source, event.id);
    const earlier = this.seen.get(idKey);
    if (earlier !== undefined) {
      return earlier === text
        ? ok(undefined)
        : invalid(
            `AEP-0001 §5.1 #2 / §7.4: id ${event.id} from ${event.source} was already used by a different event`,
          );
    }
    const verdict = this.rules(event);
    if (verdict.ok) this.seen.set(idKey, text);
    return verdict;
  }

  private rules(e: AepEvent): Verdict {
    const session = key(e.source, e.session);
    if (e.seq !== undefined) {
      const epoch = e.epoch ?? 0;
      const last = this.positions.get(session);
      if (last !== undefined && epoch < last.epoch) {
        return invalid(
          `AEP-0001 §7.2: epoch regressed from ${last.epoch} to ${epoch} in session ${e.session} (epochs are never reused)`,
        );
      }
      if (last !== undefined && epoch === last.epoch && e.seq <= last.seq) {
        return invalid(
          `AEP-0001 §7.2: seq ${e.seq} is not above ${last.seq} within epoch ${epoch} of session ${e.session} (position uniqueness)`,
        );
      }
      this.positions.set(session, { epoch, seq: e.seq });
    }
    if (RUN_TERMINALS.has(e.type) && e.run !== undefined) {
      const verdict = this.terminal(key(session, 'run', e.run), e, `run ${e.run}`);
      if (!verdict.ok) return verdict;
    }
    if (e.type === 'session.ended') {
      const verdict = this.terminal(key(session, 'session'), e, `session ${e.session}`);
      if (!verdict.ok) return verdict;
      const open = this.pending.get(session);
      if (open !== undefined && open.size > 0) {
        return invalid(
          `AEP-0002 §7.2: session ${e.session} ended with attention request(s) ${[...open].join(', ')} still pending`,
        );
      }
    }
    if (ACKS.has(e.type) && e.cause !== undefined) {
      const verdict = this.terminal(
        key(e.source, 'ack', e.cause),
        e,
        `command ${e.cause}`,
        'AEP-0004 §3: one ack decision per command',
        'decision',
      );
      if (!verdict.ok) return verdict;
    }
    if (e.type === 'attention.requested') {
      let open = this.pending.get(session);
      if (open === undefined) this.pending.set(session, (open = new Set()));
      open.add(e.id);
      if (isRecord(e.data) && Array.isArray(e.data.fields))
        this.forms.set(key(e.session, e.id), e.data.fields as FieldSpec[]);
    }
    if (ATTENTION_TERMINALS.has(e.type) && e.subject !== undefined)
      this.pending.get(session)?.delete(e.subject);
    if (e.type === 'attention.answered' && e.subject !== undefined)
      return this.formAnswer(e, e.subject);
    return ok(undefined);
  }

  /** Records the first terminal (or ack decision) of a unit; a second distinct one breaks `rule`. */
  private terminal(
    unit: string,
    e: AepEvent,
    what: string,
    rule = 'AEP-0002 §2 convention 5 (terminal exclusivity)',
    noun = 'terminal',
  ): Verdict {
    const first = this.terminals.get(unit);
    if (first !== undefined) {
      return invalid(
        `${rule}: ${what} already has ${first}; ${e.type} ${e.id} is a second ${noun}`,
      );
    }
    this.terminals.set(unit, `${e.type} ${e.id}`);
    return ok(undefined);
  }

  /** The answered record must satisfy the form: choice ids unless `other`, and required fields whose value survives the capture. */
  private formAnswer(e: AepEvent, subject: string): Verdict {
    const fields = this.forms.get(key(e.session, subject));
    const answer = isRecord(e.data) ? e.data.answer : undefined;
    if (fields === undefined || !isRecord(answer) || !isRecord(answer.values)) return ok(undefined);
    const values = answer.values;
    const textKept = captureRank(e.capture) >= captureRank('redacted');
    for (const field of fields) {
      const value = values[field.id];
      if (value === undefined) {
        const mayBeGated =
          field.type === 'string' || (field.type === 'select' && field.other === true);
        if (field.required === true && (textKept || !mayBeGated)) {
          return invalid(
            `AEP-0002 §5.3 attention.answered values rule: required field "${field.id}" has no value`,
          );
        }
        continue;
      }
      if (field.type !== 'select' || field.other === true) continue;
      const answers = Array.isArray(value) ? value : [value];
      const bad = answers.find((a) => !(field.choices ?? []).some((c) => c.id === a));
      if (bad !== undefined) {
        return invalid(
          `AEP-0002 §5.3 attention.answered values rule: ${JSON.stringify(bad)} for select field "${field.id}" is not a choice id and other is not true`,
        );
      }
    }
    return ok(undefined);
  }
}

/** Validates a whole stream in order; the message names the first broken rule and the event's position in the list. */
export function validateStream(events: readonly unknown[]): Result<void, 'invalid-stream'> {
  const checker = new StreamChecker();
  for (let i = 0; i < events.length; i++) {
    const verdict = checker.check(events[i] as AepEvent);
    if (!verdict.ok) return invalid(`event ${i}: ${verdict.error.message}`);
  }
  return ok(undefined);
}
