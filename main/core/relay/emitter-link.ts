/**
 * The in-process emitter connection: what the vendor adapters use instead of a socket. It has the
 * powers of a WS emitter (identity, per-session claims visible in the roster, control delivery)
 * without the framing. Control declarations are per session so a feature can declare a verb only
 * for the sessions that opted in, and change it live by claiming again.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { isCommandType } from '../../../common/aep/envelope';
import type { ControlCapability } from '../../../common/aep/frames';
import { validateTypedEvent } from '../aep/typed-event';
import { validateEvent } from '../aep/validate-event';
import { createLogger } from '../logger';
import type { Claimant, ClaimRegistry } from './claims';
import type { IngestItem } from './relay-types';

const log = createLogger('relay.emitter');

/** Receives a routed command: the parsed event and its byte-identical JSON text. */
export type CommandHandler = (command: AepEvent, rawJson: string) => void | Promise<void>;

/** The hello-equivalent declaration of an in-process emitter. */
export interface EmitterIdentity {
  readonly agent: string;
  readonly instance: string;
  readonly emits?: readonly string[];
  /**
   * The emitter is the daemon's own typed code (vendor and launched-agent emitters): only the
   * values its events took from outside are checked (`validateTypedEvent`), not the schemas. Any
   * other link has every event validated in full.
   */
  readonly typed?: boolean;
  /** The emitter owns control of the sessions it claims (the launch host): see `Claimant.owns`. */
  readonly owns?: boolean;
}

/** Error thrown by `EmitterLink.emit` for an event the relay will not take. */
export class EmitError extends Error {
  constructor(
    readonly code: 'invalid-event' | 'closed',
    message: string,
  ) {
    super(message);
  }
}

/** An in-process emitter connection. */
export interface EmitterLink {
  /** Claims a session, with its control declaration (absent = accepts nothing); claiming again replaces the declaration. */
  claim(session: string, control?: ControlCapability): void;
  /** Releases a claimed session (its route disappears from the roster). */
  release(session: string): void;
  /** Validates, admits and fans out events; resolves after they are committed. */
  emit(events: AepEvent | readonly AepEvent[]): Promise<void>;
  /** Receives the commands routed to this emitter's sessions; returns the unsubscribe function. */
  onCommand(handler: CommandHandler): () => void;
  /** Releases every claim; later emits reject. */
  close(): void;
}

/** The implementation behind `Relay.attachEmitter`. */
export class InProcessEmitter implements EmitterLink, Claimant {
  readonly internal = true;
  readonly owns: boolean;
  readonly agent: string;
  readonly instance: string;
  readonly emits: readonly string[] | undefined;
  private readonly controls = new Map<string, ControlCapability | undefined>();
  private readonly handlers = new Set<CommandHandler>();
  private closed = false;
  private readonly validate: (event: AepEvent) => ReturnType<typeof validateEvent>;

  constructor(
    identity: EmitterIdentity,
    private readonly claims: ClaimRegistry,
    /** Admits and fans out the items; settles once they are committed (its value is not this link's). */
    private readonly ingest: (items: readonly IngestItem[]) => Promise<void>,
    private readonly onClose: (link: InProcessEmitter) => void,
  ) {
    this.agent = identity.agent;
    this.owns = identity.owns === true;
    this.instance = identity.instance;
    this.emits = identity.emits;
    this.validate = identity.typed === true ? validateTypedEvent : validateEvent;
  }

  claim(session: string, control?: ControlCapability): void {
    if (this.closed) return;
    this.controls.set(
      session,
      control === undefined ? undefined : { ...control, accepts: [...control.accepts] },
    );
    this.claims.claim(session, this);
  }

  release(session: string): void {
    this.controls.delete(session);
    this.claims.release(session, this);
  }

  control(session: string): ControlCapability | undefined {
    return this.controls.get(session);
  }

  emit(events: AepEvent | readonly AepEvent[]): Promise<void> {
    // Not an async function: the hook path emits per call, and a promise chain of one link fewer
    // is measurably cheaper there; a refusal still comes as a rejection, never a throw.
    let items: IngestItem[];
    try {
      items = this.items(events);
    } catch (error) {
      return Promise.reject(error);
    }
    return items.length > 0 ? this.ingest(items) : Promise.resolve();
  }

  /** The events validated, serialized once, their sessions marked as the companion's (throws EmitError). */
  private items(events: AepEvent | readonly AepEvent[]): IngestItem[] {
    if (this.closed) throw new EmitError('closed', 'this emitter link is closed');
    const list: readonly AepEvent[] = Array.isArray(events) ? events : [events as AepEvent];
    const items: IngestItem[] = [];
    for (const event of list) {
      const valid = this.validate(event);
      if (!valid.ok)
        throw new EmitError(
          'invalid-event',
          `${event?.type ?? 'event'} ${event?.id ?? ''}: ${valid.error.message}`,
        );
      if (isCommandType(event.type))
        throw new EmitError(
          'invalid-event',
          `${event.type} is a command: send it with relay.sendCommand`,
        );
      items.push({ event, json: JSON.stringify(event) });
      if (event.session !== undefined) this.claims.markCompanion(event.session);
    }
    return items;
  }

  onCommand(handler: CommandHandler): () => void {
    this.handlers.add(handler);
    return () => {
      this.handlers.delete(handler);
    };
  }

  deliverCommand(event: AepEvent, json: string): void {
    if (this.handlers.size === 0)
      log.warn('command routed to an emitter without a command handler', {
        type: event.type,
        session: event.session,
      });
    for (const handler of this.handlers) {
      try {
        const result = handler(event, json);
        if (result instanceof Promise)
          result.catch((e: unknown) =>
            log.error('command handler failed', { type: event.type, error: String(e) }),
          );
      } catch (e) {
        log.error('command handler failed', { type: event.type, error: String(e) });
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.controls.clear();
    this.handlers.clear();
    this.claims.releaseAll(this);
    this.onClose(this);
  }
}
