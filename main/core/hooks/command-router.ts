/**
 * Routes the commands the relay hands to one vendor's emitter: the steering verb to the steering
 * engine, `control.attention.respond` to the permission loop, anything else nacked `unsupported`.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { instructType, type VendorId } from '../../../common/vendors';
import type { ControlAcks } from '../steering/control-acks';
import { commandOrigin } from '../steering/instruct-command';
import type { PermissionLoop } from '../steering/permission-loop';
import type { SteeringEngine } from '../steering/steering-engine';
import type { AuditSink, DurableLog, VendorChannel } from '../steering/steering-types';

/** What the router dispatches to. */
export interface CommandRouterDeps {
  readonly engine: SteeringEngine;
  readonly permissions: PermissionLoop;
  readonly acks: ControlAcks;
  readonly audit: AuditSink;
  readonly channel: (vendor: VendorId) => VendorChannel;
  /** Commits a nack with its audit row and ack event together. */
  readonly durable: DurableLog;
}

/** The command handler of one vendor's emitter. */
export function commandRouter(vendor: VendorId, deps: CommandRouterDeps): (command: AepEvent) => Promise<void> {
  return async (command) => {
    if (command.type === instructType(vendor)) return deps.engine.handleInstruct(vendor, command);
    if (command.type === 'control.attention.respond') return deps.permissions.handleRespond(vendor, command);
    const channel = deps.channel(vendor);
    const recorded = deps.acks.recorded(command);
    if (recorded) return deps.acks.resend(channel, recorded);
    const origin = commandOrigin(command);
    const { sent } = deps.durable.commit((keep) => {
      const detail = `${command.type} is not accepted here`;
      if (!deps.acks.decide(channel, command, { accepted: false, reason: 'unsupported', detail }, keep)) return;
      deps.audit({
        actor: origin.actor,
        surface: origin.surface,
        action: 'control.rejected',
        session: command.session ?? null,
        commandId: command.id,
        outcome: 'rejected',
        detail: { type: command.type, reason: 'unsupported' },
      });
    });
    await sent;
  };
}
