/**
 * The control verbs of an OpenHands conversation, behind its gate (`--instruct` and the kill switch),
 * with the ack discipline of the other vendors (one decision per command, committed with its audit
 * row; a retry gets the recorded ack byte for byte):
 * - `x.openhands.control.send_input { text }` → `POST .../events` with `run: false` (a user message
 *   appended to the conversation, never a second run). 200 means appended; its outcome
 *   (`x.openhands.input.settled`) follows from the stream: `steered` at the first agent step that
 *   must have read it (a step whose model call started after the append: the next response when
 *   tools were executing at the append, else the one after the response in flight), `deferred` when
 *   the run stopped first or was not running (the message waits in the conversation);
 * - `control.cancel` → `POST .../interrupt` (the in-flight step is cancelled, status `paused`);
 *   `run.cancelled` (by control) is cause-linked when the pause is seen;
 * - `control.attention.respond` on the confirmation card → `respond_to_confirmation`.
 */
import { inputSettledType, type InputOutcome } from '../../../../common/agent-inputs';
import { MAX_INPUT_CHARS, sendInputType } from '../../../../common/agents';
import type { AepEvent } from '../../../../common/aep/envelope';
import { decideOnce, type ControlAcks, type DecidedOutcome } from '../../steering/control-acks';
import type { AuditSink, DurableLog } from '../../steering/steering-types';
import type { VendorEmitter } from '../../steering/vendor-emitter';
import { mapped } from '../event-builders';
import type { MappingContext } from '../types';
import type { OpenHandsRest } from './client';
import type { ConversationMapping } from './mapping';
import type { OhEvent } from './wire';

export const OPENHANDS_VERBS: readonly string[] = [sendInputType('openhands'), 'control.cancel', 'control.attention.respond'];

export interface ControlDeps {
  readonly emitter: VendorEmitter;
  readonly acks: ControlAcks;
  readonly audit: AuditSink;
  readonly durable: DurableLog;
  readonly context: () => MappingContext;
  /** Why the conversation cannot be steered now, or null. */
  readonly blocked: (conversation: string) => string | null;
  readonly rest: () => OpenHandsRest | null;
  readonly mapping: (conversation: string) => ConversationMapping | null;
}

interface SentInput {
  readonly commandId: string;
  readonly text: string;
  appended: boolean;
  /** Agent responses needed after the append before one surely read it. */
  needed: number;
  responses: number;
  lastResponse: string | null;
  accepted: boolean;
  early: { outcome: InputOutcome; reason: string } | null;
}

type Outcome = DecidedOutcome;
const refused = (detail: string): Outcome => ({ decision: { accepted: false, reason: 'refused', detail } });
const invalid = (detail: string): Outcome => ({ decision: { accepted: false, reason: 'invalid', detail } });

const messageText = (e: OhEvent): string => {
  const content = (e.llm_message as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('') : '';
};

export class OpenHandsControl {
  private readonly inputs = new Map<string, SentInput[]>();
  private readonly cancels = new Map<string, { commandId: string; accepted: boolean; early: string | null }>();
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: ControlDeps) {}

  /** The command handler of the openhands emitter. */
  route(command: AepEvent): Promise<void> {
    return this.handle(command);
  }

  /** Sees each conversation event after it was mapped: settles inputs and cancels. */
  observed(conversation: string, e: OhEvent, m: ConversationMapping): AepEvent[] {
    const out: AepEvent[] = [];
    const list = this.inputs.get(conversation) ?? [];
    const settle = (input: SentInput, outcome: InputOutcome, reason: string): void => void out.push(...this.settle(conversation, input, outcome, reason));
    if (e.kind === 'x-gone') {
      for (const input of [...list]) settle(input, 'dropped', 'the conversation was deleted');
      return out;
    }
    if (e.kind === 'MessageEvent' && e.source === 'user') {
      const text = messageText(e);
      const input = list.find((i) => !i.appended && i.text === text);
      if (input) {
        input.appended = true;
        // Tools executing at the append: the POST waited for the step to end, the next step reads it.
        input.needed = m.openTools.size > 0 ? 1 : 2;
        if (m.status !== 'running') settle(input, 'deferred', `appended while the conversation is ${m.status ?? 'idle'}: the agent reads it when its next run starts`);
      }
      return out;
    }
    if ((e.kind === 'ActionEvent' || (e.kind === 'MessageEvent' && e.source === 'agent'))) {
      const response = typeof e.llm_response_id === 'string' ? e.llm_response_id : e.id;
      for (const input of [...list].filter((i) => i.appended)) {
        if (response !== input.lastResponse) {
          input.lastResponse = response;
          input.responses += 1;
        }
        if (input.responses >= input.needed) settle(input, 'steered', 'the agent read it at its next step');
      }
      return out;
    }
    if (e.kind === 'ConversationStateUpdateEvent' && m.status !== 'running' && m.status !== 'waiting_for_confirmation') {
      for (const input of [...list].filter((i) => i.appended))
        settle(input, 'deferred', `the run stopped (${m.status ?? 'unknown'}) before a step read it: it waits in the conversation for the next run`);
      const cancel = this.cancels.get(conversation);
      if (cancel !== undefined && m.status === 'paused' && m.run !== null) {
        this.cancels.delete(conversation);
        const run = m.run;
        m.run = null;
        if (cancel.accepted) out.push(...this.cancelled(conversation, run, cancel.commandId));
        else cancel.early = run;
      }
    }
    return out;
  }

  private cancelled(conversation: string, run: string, commandId: string): AepEvent[] {
    return this.deps.emitter.stamp(conversation, [{ type: 'run.cancelled', run, cause: commandId, capture: 'metadata', data: { by: 'control' } }]);
  }

  /** The outcome's event (cause = its command); before the ack is out it is kept for the ack instead. */
  private settle(conversation: string, input: SentInput, outcome: InputOutcome, reason: string): AepEvent[] {
    const list = this.inputs.get(conversation) ?? [];
    const at = list.indexOf(input);
    if (at < 0) return [];
    list.splice(at, 1);
    if (!input.accepted) {
      input.early = { outcome, reason };
      return [];
    }
    return this.settledEvents(conversation, input, outcome, reason);
  }

  private settledEvents(conversation: string, input: SentInput, outcome: InputOutcome, reason: string): AepEvent[] {
    return this.deps.emitter.stamp(conversation, [{ type: inputSettledType('openhands'), cause: input.commandId, capture: 'metadata', data: { outcome, delivery: 'now', reason } }]);
  }

  private handle(command: AepEvent): Promise<void> {
    return decideOnce(this.deps, this.inFlight, command, (c) => this.decide(c));
  }

  private async decide(command: AepEvent): Promise<Outcome> {
    const conversation = command.session;
    if (typeof conversation !== 'string' || conversation === '') return invalid('the command names no session');
    if (!OPENHANDS_VERBS.includes(command.type)) return { decision: { accepted: false, reason: 'unsupported', detail: `OpenHands sessions do not accept ${command.type}` } };
    const blocked = this.deps.blocked(conversation);
    const rest = this.deps.rest();
    const m = this.deps.mapping(conversation);
    if (blocked !== null || rest === null || m === null) return refused(blocked ?? 'the OpenHands agent server is not connected');
    try {
      if (command.type === 'control.cancel') return await this.cancel(command, conversation, rest, m);
      if (command.type === 'control.attention.respond') return await this.respond(command, conversation, rest, m);
      return await this.sendInput(command, conversation, rest, m);
    } catch (error) {
      return refused(`the OpenHands agent server refused it: ${(error as Error).message}`);
    }
  }

  private async sendInput(command: AepEvent, conversation: string, rest: OpenHandsRest, m: ConversationMapping): Promise<Outcome> {
    const text = command.data?.text;
    if (typeof text !== 'string' || text.trim() === '') return invalid('data.text must be a non-empty string');
    if (text.length > MAX_INPUT_CHARS) return invalid(`the input has ${text.length} characters; the limit is ${MAX_INPUT_CHARS}`);
    if (m.status === 'waiting_for_confirmation')
      return refused('the conversation waits for a confirmation: answer the card first (a message now would be read only after it)');
    // Listed before it is sent: the append can reach the stream before the POST's reply does.
    const input: SentInput = { commandId: command.id, text, appended: false, needed: 2, responses: 0, lastResponse: null, accepted: false, early: null };
    const list = this.inputs.get(conversation) ?? [];
    this.inputs.set(conversation, list);
    list.push(input);
    const withdraw = (): void => {
      const at = list.indexOf(input);
      if (at >= 0) list.splice(at, 1);
    };
    try {
      await rest.sendMessage(conversation, text);
    } catch (error) {
      withdraw();
      throw error;
    }
    return {
      decision: { accepted: true },
      after: () => {
        input.accepted = true;
        return input.early ? this.settledEvents(conversation, input, input.early.outcome, input.early.reason) : [];
      },
      abandon: withdraw,
    };
  }

  private async cancel(command: AepEvent, conversation: string, rest: OpenHandsRest, m: ConversationMapping): Promise<Outcome> {
    const scope = command.data?.scope ?? 'run';
    if (scope !== 'run') return { decision: { accepted: false, reason: 'unsupported', detail: 'OpenHands conversations cancel only the running run (scope "run"): deleting a conversation is not a cancel' } };
    if (m.run === null || (m.status !== 'running' && m.status !== 'waiting_for_confirmation')) return refused(`no run of this conversation is running (status ${m.status ?? 'unknown'})`);
    // Noted before the call: the pause it causes can reach the stream before its reply does.
    const note = { commandId: command.id, accepted: false, early: null as string | null };
    this.cancels.set(conversation, note);
    try {
      await rest.interrupt(conversation);
    } catch (error) {
      this.cancels.delete(conversation);
      throw error;
    }
    return {
      decision: { accepted: true },
      after: () => {
        note.accepted = true;
        return note.early === null ? [] : this.cancelled(conversation, note.early, command.id);
      },
      abandon: () => this.cancels.delete(conversation),
    };
  }

  private async respond(command: AepEvent, conversation: string, rest: OpenHandsRest, m: ConversationMapping): Promise<Outcome> {
    if (m.attention === null || m.status !== 'waiting_for_confirmation') return refused('no confirmation of this conversation is open');
    const subject = m.attention;
    const answer = (command.data?.answer ?? {}) as { option?: unknown; text?: unknown };
    // A reply with text alone denies, with the text as the reason (the card's free-text reply).
    const option = answer.option === 'allow' ? 'approve' : answer.option === undefined && typeof answer.text === 'string' ? 'deny' : answer.option;
    if (option !== 'approve' && option !== 'deny') return invalid('answer.option must be "approve" or "deny"');
    const reason = typeof answer.text === 'string' && answer.text.trim() !== '' ? answer.text.trim() : undefined;
    // Answered here: the status flip that follows (it can come before the reply) finds the card resolved.
    m.attention = null;
    try {
      await rest.respondToConfirmation(conversation, option === 'approve', reason);
    } catch (error) {
      if (m.status === 'waiting_for_confirmation') m.attention = subject;
      throw error;
    }
    return {
      decision: { accepted: true },
      after: () => {
        const answered = mapped('attention.answered', this.deps.context(), { answer: { option }, via: 'control' }, { subject, run: m.run, causeHint: { type: 'attention.requested', key: subject } });
        return this.deps.emitter.stampMapped(conversation, [answered]);
      },
    };
  }

}
