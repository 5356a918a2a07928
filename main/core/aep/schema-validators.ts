/** Compiled ajv (JSON Schema 2020-12) validators for the envelope and the payload schemas, built once, lazily. */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import envelopeSchema from '../../../resources/aep/schemas/aep-event.schema.json';
import { isRfc3339DateTime } from './rfc3339';
import { TYPE_SCHEMAS } from './type-schemas';

/** One validator set: the envelope schema plus per-type payload schemas compiled on first use. */
export interface SchemaValidators {
  readonly envelope: ValidateFunction;
  /** The payload validator for `type`, or undefined when the type has no registered schema. */
  payload(type: string): ValidateFunction | undefined;
}

function build(allErrors: boolean): SchemaValidators {
  // strict: false because the schemas carry the `x-aep-capture` annotation keyword and union types by design.
  const ajv = new Ajv2020({ allErrors, strict: false, allowUnionTypes: true });
  addFormats(ajv, ['uri']);
  // Every event carries a time: a single-regex check is about twice as fast as the generic format on the hot path.
  ajv.addFormat('date-time', { type: 'string', validate: isRfc3339DateTime });
  const envelope = ajv.compile(envelopeSchema);
  const compiled = new Map<string, ValidateFunction>();
  return {
    envelope,
    payload(type) {
      if (!Object.hasOwn(TYPE_SCHEMAS, type)) return undefined;
      let fn = compiled.get(type);
      if (fn === undefined) {
        fn = ajv.compile(TYPE_SCHEMAS[type]);
        compiled.set(type, fn);
      }
      return fn;
    },
  };
}

let fast: SchemaValidators | undefined;
let diagnostic: SchemaValidators | undefined;

/** The hot-path validators (stop at the first error). */
export const fastValidators = (): SchemaValidators => (fast ??= build(false));

/** The validators used only to explain a failure (collect every error, then pick the clearest). */
export const diagnosticValidators = (): SchemaValidators => (diagnostic ??= build(true));

/** Errors worth reporting: `if` wrapper errors only repeat what their `then` branch already said. */
export const reportable = (errors: readonly ErrorObject[] | null | undefined): ErrorObject[] =>
  (errors ?? []).filter((e) => e.keyword !== 'if');
