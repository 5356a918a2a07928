/**
 * The OpenHands feature: one in-process emitter (`agent: openhands`), the bridge to the configured
 * agent server, its control verbs behind the gate, and `/api/openhands` (status, connect,
 * disconnect). The connection is read from the data directory at start (settings.ts); connecting
 * through the API writes it there first. Its sessions join the sessions list as emitter sessions.
 */
import type { OpenHandsConnectRequest } from '../../../../common/openhands';
import { err, ok, type Result } from '../../../../common/result';
import type { VendorId } from '../../../../common/vendors';
import { redact } from '../../aep/redact';
import { ulid } from '../../aep/ulid';
import { acquireAgentPorts } from '../../steering/agent-ports';
import { EMITTER_INSTANCE, sessionSource, VendorEmitter } from '../../steering/vendor-emitter';
import type { MappedEvent, MappingContext } from '../types';
import { apiError } from '../../api/index';
import type { DaemonContext, Disposer, Feature } from '../../daemon-context';
import { createLogger } from '../../logger';
import { EpochsRepo } from '../../store/epochs-repo';
import { OpenHandsCursors } from '../../store/openhands-cursors';
import { OpenHandsBridge } from './bridge';
import { OPENHANDS_VERBS, OpenHandsControl } from './control';
import { checkUrl, clearConnection, loadConnection, saveConnection, type OpenHandsConnection } from './settings';

/** Test seams. */
export interface OpenHandsFeatureOptions {
  readonly pollMs?: number;
  readonly backoffMs?: { readonly initial: number; readonly max: number };
  readonly onReady?: (parts: { bridge: OpenHandsBridge; control: OpenHandsControl; emitter: VendorEmitter }) => void;
}

/** The agent name of OpenHands sessions. */
export const OPENHANDS_AGENT = 'openhands';

const parseConnect = (raw: unknown): Result<OpenHandsConnectRequest> => {
  const b = (raw ?? {}) as Record<string, unknown>;
  if (typeof b.url !== 'string' || typeof b.key !== 'string' || b.key.trim() === '') return err('invalid-request', 'url and key are required strings');
  const url = checkUrl(b.url);
  if (!url.ok) return err('invalid-request', url.error.message);
  return ok({ url: url.value, key: b.key.trim(), instruct: b.instruct === true });
};

export function createOpenHandsFeature(options: OpenHandsFeatureOptions = {}): Feature {
  return (ctx: DaemonContext): Disposer => {
    const log = createLogger('openhands');
    const lease = acquireAgentPorts(ctx);
    const { acks, audit, durable, killSwitch, registry } = lease.ports;
    const link = ctx.relay.attachEmitter({ agent: OPENHANDS_AGENT, instance: EMITTER_INSTANCE, typed: true });
    const epoch = new EpochsRepo(ctx.db).next(`${OPENHANDS_AGENT}/${EMITTER_INSTANCE}`);
    // OpenHands is no hook vendor (no VendorId): the emitter needs only its name for the source URI.
    const emitter = new VendorEmitter(OPENHANDS_AGENT as VendorId, link, epoch, Date.now, ulid);
    let removeSecret: (() => void) | null = null;
    const keySecrets = (): string[] => (bridge.connection ? [bridge.connection.key] : []);
    const context = (): MappingContext => ({
      capture: { default: ctx.settings.get('capture.ceiling'), attention: ctx.settings.get('capture.attentionCeiling') },
      redact: (text) => redact(text, { secretValues: [ctx.tokens.operator, ctx.tokens.hook, ...keySecrets()] }),
      newRunId: ulid,
      permissionLoop: true,
    });
    const blocked = (conversation: string): string | null => {
      if (!killSwitch.enabled) return 'steering is off (the kill switch)';
      const conn = bridge.connection;
      if (!conn) return 'no OpenHands agent server is connected';
      if (!conn.instruct) return 'OpenHands control is not opted in: connect with --instruct';
      const state = bridge.state();
      if (state.state !== 'connected') return `the OpenHands agent server is ${state.state}${state.reason ? ` (${state.reason})` : ''}`;
      const w = bridge.watched.get(conversation);
      if (!w || w.ended) return 'no live OpenHands conversation has this id';
      return null;
    };
    const control: OpenHandsControl = new OpenHandsControl({
      emitter,
      acks,
      audit,
      durable,
      context,
      blocked,
      rest: () => bridge.rest,
      mapping: (conversation) => bridge.watched.get(conversation)?.mapping ?? null,
    });
    const bridge: OpenHandsBridge = new OpenHandsBridge({
      emitter,
      cursors: new OpenHandsCursors(ctx.db),
      logger: log,
      context,
      verbs: (conversation) => (blocked(conversation) === null ? OPENHANDS_VERBS : []),
      observed: (conversation, event, mapping) => control.observed(conversation, event, mapping),
      controls: (conversation, yes) => serverOwns(conversation, yes),
      pollMs: options.pollMs,
      backoffMs: options.backoffMs,
    });
    // The server is the one source of its conversations and can act on them: it owns them (sessions/registry.ts).
    const ports = new Map<string, Parameters<typeof registry.own>[1]>();
    const serverOwns = (conversation: string, yes: boolean): void => {
      const held = ports.get(conversation);
      if (!yes) {
        if (held !== undefined) registry.disown(conversation, held);
        ports.delete(conversation);
        return;
      }
      if (held !== undefined) return;
      const source = sessionSource(OPENHANDS_AGENT as VendorId, conversation);
      registry.sighted({ session: conversation, kind: 'server', agent: OPENHANDS_AGENT, source });
      const port = {
        kind: 'server' as const,
        agent: OPENHANDS_AGENT,
        source,
        currentRun: () => bridge.watched.get(conversation)?.mapping.run ?? null,
        emit: (events: readonly MappedEvent[]) => bridge.send(conversation, events),
      };
      ports.set(conversation, port);
      registry.own(conversation, port);
    };
    const connect = (conn: OpenHandsConnection): void => {
      removeSecret?.();
      removeSecret = ctx.addSecret?.(conn.key) ?? null;
      bridge.connect(conn);
    };
    const saved = loadConnection(ctx.dataDir);
    if (!saved.ok) log.warn('the saved OpenHands connection is not usable', { reason: saved.error.message });
    else if (saved.value) connect(saved.value);

    const unsubscribe = [emitter.onCommand((command) => control.route(command)), killSwitch.onFlip(() => bridge.redeclare())];
    const api = ctx.api.register({
      'GET /api/openhands': { handle: () => bridge.state() },
      'POST /api/openhands/connect': {
        parse: parseConnect,
        handle: (input) => {
          try {
            saveConnection(ctx.dataDir, input);
          } catch (error) {
            return apiError(500, 'write-failed', `cannot write the connection: ${(error as Error).message}`);
          }
          audit({ actor: 'operator', surface: 'api', action: 'openhands.connect', session: null, commandId: null, outcome: 'ok', detail: { url: input.url, instruct: input.instruct } });
          connect(input);
          return bridge.state();
        },
      },
      'POST /api/openhands/disconnect': {
        handle: () => {
          clearConnection(ctx.dataDir);
          audit({ actor: 'operator', surface: 'api', action: 'openhands.disconnect', session: null, commandId: null, outcome: 'ok', detail: null });
          bridge.disconnect();
          removeSecret?.();
          removeSecret = null;
          return bridge.state();
        },
      },
    });
    options.onReady?.({ bridge, control, emitter });
    return async () => {
      api();
      for (const u of unsubscribe) u();
      await bridge.idle();
      bridge.disconnect();
      removeSecret?.();
      emitter.close();
      lease.release();
    };
  };
}

export const openhandsFeature: Feature = createOpenHandsFeature();
