/** WebSocket frames (AEP-0003 §2, §4, §6.5; AEP-0004 §4.2). Frames have no dot in their type. */
import type { Capture, Position } from './envelope';

export type Role = 'emitter' | 'consumer' | 'both';

export interface ControlCapability {
  readonly accepts: readonly string[];
  readonly ack_window_ms?: number;
}

export interface Capabilities {
  readonly emits?: readonly string[];
  readonly capture?: readonly Capture[];
  readonly control?: ControlCapability;
  readonly replay?: { readonly buffer: number; readonly all?: boolean };
  readonly filters?: readonly string[];
  readonly roster?: Record<string, never>;
  readonly experimental?: Record<string, unknown>;
  readonly [key: string]: unknown;
}

export interface HelloFrame {
  readonly type: 'hello';
  readonly versions: readonly string[];
  readonly role?: Role;
  readonly identity?: { readonly agent?: string; readonly instance?: string; readonly card?: unknown };
  readonly capabilities?: Capabilities;
}

export type SubscribeErrorCode = 'invalid-filter' | 'unknown-dialect' | 'unauthorized' | 'limit-exceeded';
export type CommandErrorCode = 'unauthorized' | 'unsupported' | 'ambiguous' | 'no-route';
export type ConnectionErrorCode = 'hello-required' | 'version-unsupported' | 'invalid-frame' | 'invalid-event' | 'binary-unsupported';

export interface SubscribeFrame {
  readonly type: 'subscribe';
  readonly id: string;
  readonly filter?: Record<string, unknown>;
  readonly from?: readonly Position[] | 'all';
  readonly capture?: Capture;
}

export interface ErrorFrame {
  readonly type: 'error';
  readonly code: SubscribeErrorCode | CommandErrorCode | ConnectionErrorCode | string;
  readonly id?: string;
  readonly cause?: string;
  readonly detail?: string;
  readonly versions?: readonly string[];
}

export interface RosterEntry {
  readonly session: string;
  readonly agent?: string;
  readonly instance?: string;
  readonly control?: ControlCapability;
  readonly emits?: readonly string[];
}

export interface RosterFrame {
  readonly type: 'roster';
  readonly id: string;
  readonly entries?: readonly RosterEntry[];
}

export interface ClosingFrame {
  readonly type: 'closing';
  readonly reason: string;
  readonly delivered: ReadonlyArray<{ sub: string } & Position>;
}

export interface ReplayExhaustedFrame {
  readonly type: 'replay-exhausted';
  readonly sub: string;
  readonly session: string;
  readonly earliest: { readonly epoch: number; readonly seq: number };
}

export type Frame =
  | HelloFrame
  | SubscribeFrame
  | { readonly type: 'subscribed'; readonly id: string }
  | { readonly type: 'unsubscribe'; readonly id: string }
  | { readonly type: 'unsubscribed'; readonly id: string }
  | RosterFrame
  | ErrorFrame
  | ReplayExhaustedFrame
  | ClosingFrame
  | { readonly type: 'ping'; readonly t?: unknown }
  | { readonly type: 'pong'; readonly t?: unknown };
