/**
 * The WS `hello` exchange (AEP-0003 §4), parsed: the version chosen, the role, the identity and the
 * declarations kept for the roster. Declarations are bounded (lengths and counts) so one hello
 * cannot make every later `roster` answer huge; malformed ones are simply not declarations.
 */
import type { ControlCapability, Role } from '../../../common/aep/frames';
import { MAX_ROUTING_LENGTH, hasControlCharacter } from '../aep/envelope-bounds';
import { SUPPORTED_VERSIONS } from './http-ingest';

type Json = Record<string, unknown>;

/** Most entries of `capabilities.emits` or `control.accepts` kept from one hello. */
export const MAX_DECLARED_TYPES = 1_024;
/** Largest control declaration kept (JSON characters): every roster answer repeats it. */
export const MAX_CONTROL_DECLARATION = 16_384;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A bounded identity string, or undefined. */
const identityString = (v: unknown): string | undefined =>
  typeof v === 'string' && v.length <= MAX_ROUTING_LENGTH && !hasControlCharacter(v)
    ? v
    : undefined;

const typeList = (v: unknown): string[] | undefined =>
  Array.isArray(v) &&
  v.length <= MAX_DECLARED_TYPES &&
  v.every((e) => typeof e === 'string' && e.length <= 256)
    ? (v as string[])
    : undefined;

/** What a peer's hello declared. */
export interface PeerHello {
  readonly version: string;
  readonly role: Role;
  readonly agent: string | undefined;
  readonly instance: string | undefined;
  readonly emits: readonly string[] | undefined;
  readonly control: ControlCapability | undefined;
}

/** The refusal of a first frame: the error frame to send before closing. */
export interface HelloRefusal {
  readonly code: 'hello-required' | 'version-unsupported';
  readonly frame: Json;
}

/** Parses the first frame of a connection (`undefined` when it was not JSON). */
export function parseHello(
  value: unknown,
): { ok: true; hello: PeerHello } | { ok: false; refusal: HelloRefusal } {
  if (!isObject(value) || value.type !== 'hello') {
    return {
      ok: false,
      refusal: {
        code: 'hello-required',
        frame: { type: 'error', code: 'hello-required', detail: 'the first frame must be hello' },
      },
    };
  }
  const versions = Array.isArray(value.versions) ? value.versions : [];
  const chosen = versions.find((v) => (SUPPORTED_VERSIONS as readonly unknown[]).includes(v));
  if (chosen === undefined) {
    return {
      ok: false,
      refusal: {
        code: 'version-unsupported',
        frame: {
          type: 'error',
          code: 'version-unsupported',
          detail: 'no common AEP version',
          versions: [...SUPPORTED_VERSIONS],
        },
      },
    };
  }
  const r = value.role;
  const role: Role = r === 'emitter' || r === 'both' || r === 'consumer' ? r : 'consumer';
  const identity = isObject(value.identity) ? value.identity : {};
  const caps: Json = isObject(value.capabilities) ? value.capabilities : {};
  const control = caps.control;
  const accepts = isObject(control) ? typeList(control.accepts) : undefined;
  return {
    ok: true,
    hello: {
      version: chosen as string,
      role,
      agent: identityString(identity.agent),
      instance: identityString(identity.instance),
      emits: typeList(caps.emits),
      // Kept verbatim for the roster (nesting is bounded by the frame parser).
      control:
        isObject(control) &&
        accepts !== undefined &&
        JSON.stringify(control).length <= MAX_CONTROL_DECLARATION
          ? (control as unknown as ControlCapability)
          : undefined,
    },
  };
}
