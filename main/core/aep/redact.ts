/**
 * The AEP-0003 §9.4 redaction pipeline, in order: (a) secrets, (b) operator-configured secret values,
 * (c) home paths, (d) PII (on by default). It is a floor: several patterns harden beyond the minimum.
 */

/** What the operator configured for redaction. Everything arrives as a parameter (core reads no environment). */
export interface RedactOptions {
  /** Literal secret values (e.g. the values of environment variables the operator lists as secret), rule (b). */
  readonly secretValues?: readonly string[];
  /** The operator's home directory, replaced by `~` (rule c). */
  readonly home?: string;
  /** PII redaction (emails, phone numbers), rule (d); on unless set to false. */
  readonly pii?: boolean;
}

/** Replacement for a secret or credential. */
export const SECRET_MARK = '[REDACTED:secret]';
/** Replacement for PII. */
export const PII_MARK = '[REDACTED:pii]';

/** Rule (a): bare credential shapes. Order matters only for readability; each replaces whole matches. */
const SECRET_SHAPES: readonly (readonly [RegExp, readonly string[]])[] = [
  // Each shape with the literals one of which every match contains: a text holding none of them is
  // not searched (most tool inputs and results hold no credential shape at all).
  // PEM blocks (any label), and a BEGIN without its END up to the end of the text.
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g, ['-----BEGIN ']],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, ['AKIA', 'ASIA']],
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, ['eyJ']],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, ['gh']],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, ['github_pat_']],
  [/\bglpat-[A-Za-z0-9_-]{20,}/g, ['glpat-']],
  [/\bxox[abposre]-[A-Za-z0-9-]{10,}/g, ['xox']],
  [/\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}/g, ['sk-']],
  [/\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}/g, ['k_live_', 'k_test_']],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, ['AIza']],
  [/\bnpm_[A-Za-z0-9]{30,}/g, ['npm_']],
];

const holdsAny = (text: string, literals: readonly string[]): boolean => {
  for (const l of literals) if (text.includes(l)) return true;
  return false;
};
/** Home directories (rule c) start with one of these. */
const HOME_HINTS = ['/home', '/Users', '\\Users'];
const DIGIT = /\d/;

/** Bearer tokens; the token must look like one (8+ chars with a digit or token punctuation) so prose survives. */
const BEARER = /\b(bearer\s+)(?=[A-Za-z0-9._~+/-]*[0-9._~+/-])[A-Za-z0-9._~+/-]{8,}=*/gi;

/** `name = value` / `"name": "value"` assignments whose name says credential. */
const ASSIGNMENT =
  /((?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*?(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|token|credentials?)(?:[_-]?(?:key|value))?)(["']?\s*[=:]\s*)(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"',;}]+))/gi;

/** Rule (c): any user's home directory (Linux, macOS, Windows), beyond the operator's own. */
const HOME_DIRS = /(?<![\w.~-])(?:\/home|\/Users|[A-Za-z]:\\Users)[/\\][^/\\\s"'`:;,]+/g;

// The lookbehinds anchor each match at the start of a run, keeping long unbroken runs (base64, hex) linear.
const EMAIL =
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** Phone numbers: grouped digits with separators, optional country code or area-code parentheses. */
const PHONE =
  /(?<![\w.+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?|\d{2,4}[ .-])\d{2,4}[ .-]\d{3,4}(?!\w|\.\d)/g;

/** Redacts free text through the §9.4 pipeline (a → b → c → d). */
export function redact(text: string, options: RedactOptions = {}): string {
  let out = text;
  for (const [shape, literals] of SECRET_SHAPES) if (holdsAny(out, literals)) out = out.replace(shape, SECRET_MARK);
  if (/bearer/i.test(out)) out = out.replace(BEARER, (_m, scheme: string) => scheme + SECRET_MARK);
  if (out.includes('=') || out.includes(':'))
    out = out.replace(ASSIGNMENT, (_m, name: string, sep: string, dq?: string, sq?: string) =>
      dq !== undefined
        ? `${name}${sep}"${SECRET_MARK}"`
        : sq !== undefined
          ? `${name}${sep}'${SECRET_MARK}'`
          : `${name}${sep}${SECRET_MARK}`,
    );
  const secrets = options.secretValues ?? [];
  if (secrets.length > 0) {
    for (const value of longestFirst(secrets)) {
      if (out.includes(value)) out = out.split(value).join(SECRET_MARK);
    }
  }
  if (options.home !== undefined && options.home.length > 1) {
    const home = options.home.replace(/[/\\]+$/, '');
    if (out.includes(home)) out = out.replace(new RegExp(`${escapeRegExp(home)}(?=$|[/\\\\\\s"'\`:;,])`, 'g'), '~');
  }
  if (holdsAny(out, HOME_HINTS)) out = out.replace(HOME_DIRS, '~');
  if (options.pii !== false) {
    if (out.includes('@')) out = out.replace(EMAIL, PII_MARK);
    if (DIGIT.test(out)) out = out.replace(PHONE, (m) => (m.replace(/\D/g, '').length >= 7 ? PII_MARK : m));
  }
  return out;
}

/** Object keys that name a credential: their values are dropped whatever their shape (keys stay, being structural). */
const CREDENTIAL_KEY =
  /(?:^|[_-])(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|secret[_-]?key|client[_-]?secret|authorization|credentials?|cookie)(?:$|[_-])/;

/** True when an object key names a credential. */
export const isCredentialKey = (key: string): boolean => CREDENTIAL_KEY.test(key.toLowerCase());

/** Redacts a JSON value: strings through the pipeline, credential-named keys' values replaced; other scalars untouched. */
export function redactValue(value: unknown, options: RedactOptions = {}): unknown {
  if (typeof value === 'string') return redact(value, options);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, options));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        isCredentialKey(k) && v !== null && typeof v !== 'boolean'
          ? SECRET_MARK
          : redactValue(v, options);
    }
    return out;
  }
  return value;
}

/** The last secret values seen and their non-empty ones longest first (the same values arrive on every call). */
let lastSecrets: readonly string[] = [];
let lastOrder: readonly string[] = [];
function longestFirst(secrets: readonly string[]): readonly string[] {
  let same = secrets.length === lastSecrets.length;
  for (let i = 0; same && i < secrets.length; i++) same = secrets[i] === lastSecrets[i];
  if (!same) {
    lastSecrets = [...secrets];
    lastOrder = secrets.filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
  }
  return lastOrder;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
