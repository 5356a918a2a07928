/** The relay's public surface. */
export { Relay, type RelayOptions, type DiscoveryDocument } from './relay';
export {
  type EmitterLink,
  type EmitterIdentity,
  type CommandHandler,
  EmitError,
} from './emitter-link';
export { type RelayLimits, DEFAULT_RELAY_LIMITS } from './relay-limits';
export { type IngestItem, type CommandSender } from './relay-types';
export { registerRelayRoutes } from './relay-routes';
export { type RelayIdentity } from './ws-connection';
