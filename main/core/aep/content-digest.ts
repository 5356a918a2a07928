/** Content digests (AEP-0003 §9.3): SHA-256 over canonical JSON, hex of the first 16 bytes. */
import * as crypto from 'node:crypto';

/** Canonical JSON (RFC 8785 style): object keys sorted by UTF-16 code units, no whitespace, ES number form. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined, functions and symbols have no JSON form; treat them as null like an array slot would.
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++)
      // A hole stays empty, as map + join leave it.
      out += (i === 0 ? '' : ',') + (i in value ? canonicalJson(value[i]) : '');
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Insertion sort by UTF-16 code units (what the default sort does for strings), in place: the
  // key lists are short, and the default sort copies into a work array on every call.
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
  let out = '{';
  let first = true;
  for (const k of keys) {
    const inner = record[k];
    if (inner === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalJson(inner)}`;
    first = false;
  }
  return `${out}}`;
}

/** SHA-256 of the canonical JSON of `value`, as 32 hex characters (first 16 bytes). Compute it before redaction. */
export const contentDigest = (value: unknown): string => sha256Hex(canonicalJson(value)).slice(0, 32);

/** One-shot `crypto.hash` where the runtime has it (no Hash object per digest), else `createHash`. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex = (text: string): string =>
  oneShot !== undefined ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text, 'utf8').digest('hex');
