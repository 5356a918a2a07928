/** The AEP-0001 §5.1 context attributes, in table order, and the extension-attribute name form (§5.4). */

/** Core attribute names with their AEP-0001 §5.1 row number. */
export const CORE_ATTRIBUTES: Readonly<Record<string, number>> = {
  aep: 1,
  id: 2,
  type: 3,
  subject: 4,
  time: 5,
  source: 6,
  agent: 7,
  session: 8,
  run: 9,
  step: 10,
  seq: 11,
  epoch: 12,
  cause: 13,
  traceparent: 14,
  severity: 15,
  capture: 16,
  data: 17,
};

/** True when `name` is a core attribute (never a legal extension attribute name). */
export const isCoreAttribute = (name: string): boolean => Object.hasOwn(CORE_ATTRIBUTES, name);

const EXTENSION_NAME = /^[a-z0-9]{1,20}$/;

/** True when `name` has the extension-attribute form `[a-z0-9]{1,20}` and is not a core name (AEP-0001 §5.4). */
export const isExtensionName = (name: string): boolean =>
  EXTENSION_NAME.test(name) && !isCoreAttribute(name);

/** The thirteen registered categories (AEP-0002 §3); `x` is the vendor namespace. */
export const CATEGORIES: ReadonlySet<string> = new Set([
  'agent',
  'session',
  'run',
  'progress',
  'tool',
  'delegation',
  'attention',
  'resource',
  'error',
  'state',
  'assessment',
  'message',
  'control',
]);
