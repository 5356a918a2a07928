/**
 * Events arriving on a WS connection (AEP-0003 §3.5, AEP-0004 §4): validated like POSTed ones,
 * commands routed to at most one target, other events ingested with backpressure on the socket.
 * An emitter's session events claim the session, under the outside-claim rule (`claims.ts`): a
 * session owned by the companion's own adapters, or introduced by another emitter, is refused.
 */
import { isAgentScoped, isCommandType, type AepEvent } from '../../../common/aep/envelope';
import type { Role } from '../../../common/aep/frames';
import { validateEvent } from '../aep/validate-event';
import { createLogger } from '../logger';
import type { Principal } from '../server/route-table';
import type { Claimant } from './claims';
import type { Relay } from './relay';

const log = createLogger('relay.ws');

/** Pauses reading from an emitter while this many of its events wait for commit. */
const MAX_INFLIGHT = 2_000;

type Json = Record<string, unknown>;

/** What the event path needs from its connection. */
export interface WsEventPeer extends Claimant {
  readonly principal: Principal;
  role(): Role;
  send(frame: Json): void;
  error(code: string, detail: string, extra?: Json): void;
  refuse(request: string, detail: string, extra: Json): void;
  pause(): void;
  resume(): void;
}

/** The event side of one WS connection. */
export class WsEvents {
  private inflight = 0;
  private paused = false;

  constructor(
    private readonly peer: WsEventPeer,
    private readonly relay: Relay,
  ) {}

  /** Handles one frame whose type has a dot; `text` is the frame as received. */
  onEvent(value: Json, text: string): void {
    const valid = validateEvent(value);
    const id = typeof value.id === 'string' ? value.id : undefined;
    if (!valid.ok)
      return this.peer.error('invalid-event', valid.error.message, id !== undefined ? { id } : {});
    const event = valid.value;
    const json = /[\r\n]/.test(text) ? JSON.stringify(event) : text.trim();
    if (isCommandType(event.type)) return this.onCommand(event, json);
    if (this.peer.principal === 'anonymous') {
      return this.peer.refuse(
        'emit',
        'tokenless connections are watch-only; emitting needs the hook or operator token',
        { id: event.id },
      );
    }
    if (
      this.peer.role() !== 'consumer' &&
      !isAgentScoped(event.type) &&
      event.session !== undefined &&
      event.seq !== undefined
    ) {
      if (event.type === 'session.ended') this.relay.claims.release(event.session, this.peer);
      else {
        const refused = this.relay.claims.claimFromOutside(event.session, event.source, this.peer);
        if (refused !== undefined) return this.peer.refuse('claim', refused, { id: event.id });
      }
    }
    this.inflight++;
    if (this.inflight >= MAX_INFLIGHT && !this.paused) {
      this.paused = true;
      this.peer.pause();
    }
    this.relay
      .ingest([{ event, json }])
      .catch((e: unknown) => {
        log.error('ingest failed', { error: String(e) });
        this.peer.error('ingest-failed', 'the event could not be committed; send it again', {
          id: event.id,
        });
      })
      .finally(() => {
        this.inflight--;
        if (this.paused && this.inflight < MAX_INFLIGHT / 4) {
          this.paused = false;
          this.peer.resume();
        }
      });
  }

  private onCommand(event: AepEvent, json: string): void {
    this.relay
      .routeCommand(
        { event, json },
        {
          authenticated: this.peer.principal === 'operator',
          surface: 'ws',
          label: this.peer.agent,
        },
      )
      .then((routed) => {
        if (!routed.ok)
          this.peer.send({
            type: 'error',
            cause: event.id,
            code: routed.error.code,
            detail: routed.error.message,
          });
      })
      .catch((e: unknown) => {
        log.error('command routing failed', { error: String(e) });
        this.peer.send({
          type: 'error',
          cause: event.id,
          code: 'no-route',
          detail: 'the relay could not store the command',
        });
      });
  }
}
