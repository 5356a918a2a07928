/** The OpenHands agent-server connection as the console, the CLI and /api see it (never the key). */

/** Where the bridge stands with the agent server. */
export type OpenHandsLinkState =
  | 'disconnected'
  | 'connecting'
  | 'connected'
  | 'unreachable'
  | 'unauthorized'
  | 'unsupported';

export interface OpenHandsState {
  /** The configured server, or null when none is connected. */
  readonly url: string | null;
  /** Steering opt-in (`--instruct`): control verbs are declared only with it and the kill switch on. */
  readonly instruct: boolean;
  readonly state: OpenHandsLinkState;
  /** Why the link is not connected, in words (null when it is). */
  readonly reason: string | null;
  /** The server's `/server_info` version, once read. */
  readonly version: string | null;
  /** Conversations watched now. */
  readonly conversations: number;
}

/** `POST /api/openhands/connect`: the key in the body is written to a 0600 file and never echoed. */
export interface OpenHandsConnectRequest {
  readonly url: string;
  readonly key: string;
  readonly instruct: boolean;
}
