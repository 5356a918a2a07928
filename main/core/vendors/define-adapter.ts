/**
 * Builds a vendor adapter from its specific parts; the rules every vendor shares (which calls may
 * carry steering, which are held, which end the session) are derived from the profile here, once.
 */
import { err } from '../../../common/result';
import type { VendorProfile } from '../../../common/vendors';
import type { HookCall, VendorAdapter } from './types';

/** The parts a vendor module supplies. */
export type AdapterParts = Pick<VendorAdapter, 'parse' | 'map'> & {
  readonly profile: VendorProfile;
  /** Held moments beyond the permission moments (none for most vendors). */
  readonly heldMoments?: readonly string[];
  /**
   * Permission moments held only while the session's permission loop (the opt-in gate) is on;
   * with it off they are ordinary moments (a delivery moment among them carries steering).
   */
  readonly gatedMoments?: readonly string[];
  /** Narrows which calls of a held moment are held (default: all of them). */
  readonly holds?: (call: HookCall) => boolean;
  /** Moments that carry a subagent's id yet fire in the parent session (their context reaches the parent). */
  readonly parentMoments?: readonly string[];
  readonly steeringBody: (call: HookCall, text: string) => Readonly<Record<string, unknown>>;
  readonly permissionReply?: VendorAdapter['permissionReply'];
  /** What a command hook prints for the empty reply, when not its JSON (Codex: nothing). */
  readonly emptyCommandOutput?: string;
};

/** Composes the adapter. */
export const defineAdapter = (parts: AdapterParts): VendorAdapter => {
  const { profile } = parts;
  const held = new Set([...profile.permissionMoments, ...(parts.heldMoments ?? [])]);
  const gated = new Set(parts.gatedMoments ?? []);
  const isHeld = (call: HookCall, loopOn = true): boolean =>
    held.has(call.moment) && (loopOn || !gated.has(call.moment)) && (parts.holds?.(call) ?? true);
  // Context returned inside a subagent reaches that subagent, not the session the operator steers;
  // a subagent's start moment is the parent's (it names the child it starts).
  const acceptsSteering = (call: HookCall, loopOn?: boolean): boolean =>
    profile.deliveryMoments.includes(call.moment) &&
    !isHeld(call, loopOn) &&
    (call.agentId === undefined || (parts.parentMoments ?? []).includes(call.moment));
  return {
    id: profile.id,
    profile,
    parse: parts.parse,
    map: parts.map,
    acceptsSteering,
    isHeld,
    heldMoments: [...held],
    emptyCommandOutput: parts.emptyCommandOutput ?? '{}',
    endsSession: (call) =>
      profile.sessionEndMoment !== null && call.moment === profile.sessionEndMoment,
    emptyReply: () => ({}),
    steeringReply: (call, text, loopOn) =>
      acceptsSteering(call, loopOn)
        ? { ok: true, value: parts.steeringBody(call, text) }
        : err(
            'not-a-delivery-moment',
            `${profile.name} ${call.moment} replies do not carry steering here`,
          ),
    permissionReply:
      parts.permissionReply ??
      ((call) =>
        err(
          'not-a-permission-moment',
          `${profile.name} has no answerable moment (${call.moment})`,
        )),
  };
};
