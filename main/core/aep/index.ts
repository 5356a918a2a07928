/** The AEP core library: validation, ids, filters, capture gating and redaction. The public API of `main/core/aep`. */
export { validateEvent, parseEventJson } from './validate-event';
export { StreamChecker, validateStream } from './stream-checker';
export { isLegalType, typeGrammarError } from './type-grammar';
export { CORE_ATTRIBUTES, isCoreAttribute, isExtensionName } from './core-attributes';
export { withExtensions } from './extensions';
export { ulid, createUlid } from './ulid';
export { parseFilter, matchesFilter, type Filter } from './filter';
export { downlevel, type DownlevelOptions } from './downlevel';
export { applyCeiling, type CeilingOptions } from './apply-ceiling';
export { gateFormValues, checkFormAnswer, type FieldSpec } from './form-values';
export {
  redact,
  redactValue,
  isCredentialKey,
  SECRET_MARK,
  PII_MARK,
  type RedactOptions,
} from './redact';
export { contentDigest, canonicalJson } from './content-digest';
export { parseBoundedJson, depthExceededAt, exceedsDepth, MAX_JSON_DEPTH, type JsonBounds } from './bounded-json';
export {
  envelopeBoundsError,
  hasControlCharacter,
  MAX_ROUTING_LENGTH,
  MAX_SOURCE_LENGTH,
  MAX_EXTENSION_LENGTH,
} from './envelope-bounds';
