/** Content digests (AEP-0003 §9.3): SHA-256 over canonical JSON, hex of the first 16 bytes. */
import * as crypto from 'node:crypto';

/** Canonical JSON (RFC 8785 style): object keys sorted by UTF-16 code units, no whitespace, ES number form. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined, functions and symbols have no JSON form; treat them as null like an array slot would.
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`);
  return `{${members.join(',')}}`;
}

/** SHA-256 of the canonical JSON of `value`, as 32 hex characters (first 16 bytes). Compute it before redaction. */
export const contentDigest = (value: unknown): string => sha256Hex(canonicalJson(value)).slice(0, 32);

/** One-shot `crypto.hash` where the runtime has it (no Hash object per digest), else `createHash`. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex = (text: string): string =>
  oneShot !== undefined ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text, 'utf8').digest('hex');
