/**
 * Commands this window sends (AEP-0004): the local facts only a sender owns (which commands it
 * sent, which ack windows ran out, which the relay refused in-band). Their settled state comes
 * from the stream (acks and outcomes indexed by cause), never from here.
 */
import type { AepEvent, Capture } from '../../../common/aep/envelope';
import type { ErrorFrame } from '../../../common/aep/frames';
import type { Surface } from '../../../common/audit';
import { newId } from '../api/ids';

/** A command this window sent. */
export interface SentCommand {
  readonly id: string;
  readonly session: string;
  readonly type: string;
  readonly sentAt: string;
  readonly text?: string;
  /** How a launched-session input asked to be delivered. */
  readonly delivery?: string;
  /** Where it was sent from (audited as the command's surface). */
  readonly surface?: Surface;
  sent: boolean;
  timedOut: boolean;
  refusal?: { code: string; detail?: string };
}

/** What a command is made of before its envelope. */
export interface CommandDraft {
  readonly type: string;
  readonly session: string;
  readonly subject?: string;
  readonly cause?: string;
  readonly capture?: Capture;
  readonly data: Record<string, unknown>;
  readonly surface?: Surface;
}

const SENDER_AGENT = 'aep-companion-console';
const DEFAULT_ACK_WINDOW_MS = 10_000;
/** Commands remembered per window; the oldest settled ones are forgotten first. */
export const MAX_COMMANDS = 500;

/** What the sender needs from the store. */
export interface CommandSenderDeps {
  readonly instance: string;
  readonly send: (event: AepEvent) => boolean;
  readonly caused: (id: string) => readonly AepEvent[];
  readonly changed: () => void;
}

/** Sends commands and keeps what only the sender knows about them. */
export class CommandSender {
  readonly commands = new Map<string, SentCommand>();
  ackWindowMs = DEFAULT_ACK_WINDOW_MS;

  constructor(private readonly deps: CommandSenderDeps) {}

  /** Sends one command; returns its local record. */
  send(partial: CommandDraft, text?: string): SentCommand {
    const id = newId();
    const event: AepEvent = {
      aep: '0.1',
      id,
      type: partial.type,
      time: new Date().toISOString(),
      source: `urn:aep-companion:console:${this.deps.instance}`,
      agent: SENDER_AGENT,
      session: partial.session,
      ...(partial.subject ? { subject: partial.subject } : {}),
      ...(partial.cause ? { cause: partial.cause } : {}),
      ...(partial.capture ? { capture: partial.capture } : {}),
      data: partial.data,
      surface: partial.surface ?? 'console',
    };
    const delivery = typeof partial.data.delivery === 'string' ? partial.data.delivery : undefined;
    const command: SentCommand = { id, session: partial.session, type: partial.type, sentAt: event.time, text, delivery, surface: event.surface as Surface, sent: false, timedOut: false };
    command.sent = this.deps.send(event);
    this.commands.set(id, command);
    this.trim();
    if (command.sent) {
      setTimeout(() => {
        if (!this.deps.caused(id).some((e) => e.type === 'control.accepted' || e.type === 'control.rejected') && !command.refusal) {
          command.timedOut = true;
          this.deps.changed();
        }
      }, this.ackWindowMs);
    }
    this.deps.changed();
    return command;
  }

  /** The relay refused a command in-band (an `error` frame whose cause is the command id). */
  onError(frame: ErrorFrame): void {
    const key = frame.cause ?? frame.id;
    const command = key ? this.commands.get(key) : undefined;
    if (!command) return;
    command.refusal = { code: frame.code, detail: frame.detail };
    this.deps.changed();
  }

  /** Forgets the commands of a released session. */
  forgetSession(session: string): void {
    for (const [id, c] of this.commands) if (c.session === session) this.commands.delete(id);
  }

  private trim(): void {
    // Maps iterate in insertion order: the first entries are the oldest.
    for (const id of this.commands.keys()) {
      if (this.commands.size <= MAX_COMMANDS) break;
      this.commands.delete(id);
    }
  }
}
