/** The session registry: one identity per agent session across sources, its owner, and the merge of facts. */
export { SessionRegistry, LAUNCH_WAIT_MS, type OwnerListener, type SessionRegistryDeps } from './registry';
export { FactLedger, factKey, ownerOnly, speaksWithAgent, toolCallId, MAX_FACTS_PER_SESSION } from './merge';
export { SOURCE_KINDS, type OwnerPort, type SourceKind, type SourceSighting } from './source';
