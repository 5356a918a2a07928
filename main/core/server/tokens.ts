/**
 * The two secrets of a daemon (ARCHITECTURE §3): the operator token (console, control, /api) and
 * the hook token (ingest only). Created at first run as `operator-token` and `hook-token` (mode
 * 0600) in the data directory; rotation rewrites the file and takes effect at once.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgetSecret, registerSecret } from '../logger';

/** Which token. */
export type TokenKind = 'operator' | 'hook';

/** File names of the tokens in the data directory. */
export const TOKEN_FILES: Readonly<Record<TokenKind, string>> = {
  operator: 'operator-token',
  hook: 'hook-token',
};

/** A fresh random token (256 bits, URL-safe). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function writeToken(file: string, token: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

function readOrCreate(file: string): string {
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 16) {
      chmodSync(file, 0o600);
      return existing;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const token = newToken();
  writeToken(file, token);
  return token;
}

/** Compares a presented token's bytes with a token's, in constant time for equal lengths. */
function equal(x: Buffer, b: string): boolean {
  const y = bytesOf(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The bytes of the current tokens, encoded once per token (every request compares against them). */
let encoded: { text: string; bytes: Buffer }[] = [];
function bytesOf(token: string): Buffer {
  for (const e of encoded) if (e.text === token) return e.bytes;
  const bytes = Buffer.from(token);
  // Two tokens are current; a rotation adds one, so keep the last few.
  encoded = [{ text: token, bytes }, ...encoded.slice(0, 3)];
  return bytes;
}

/** The live tokens of one daemon, backed by their files. */
export class TokenStore {
  private current: Record<TokenKind, string>;

  private constructor(
    private readonly dataDir: string,
    tokens: Record<TokenKind, string>,
  ) {
    this.current = tokens;
    registerSecret(tokens.operator);
    registerSecret(tokens.hook);
  }

  /** Loads the token files of a data directory, creating missing ones (throws on I/O failure). */
  static open(dataDir: string): TokenStore {
    return new TokenStore(dataDir, {
      operator: readOrCreate(join(dataDir, TOKEN_FILES.operator)),
      hook: readOrCreate(join(dataDir, TOKEN_FILES.hook)),
    });
  }

  /** The current value of a token. */
  get(kind: TokenKind): string {
    return this.current[kind];
  }

  /** Both current tokens. */
  snapshot(): { operator: string; hook: string } {
    return { ...this.current };
  }

  /** Which token a presented value is, or null when it is neither. */
  identify(presented: string): TokenKind | null {
    if (presented === '') return null;
    const bytes = Buffer.from(presented);
    if (equal(bytes, this.current.operator)) return 'operator';
    if (equal(bytes, this.current.hook)) return 'hook';
    return null;
  }

  /** Replaces a token with a fresh one (file first, then memory) and returns it. */
  rotate(kind: TokenKind): string {
    const token = newToken();
    writeToken(join(this.dataDir, TOKEN_FILES[kind]), token);
    forgetSecret(this.current[kind]);
    this.current = { ...this.current, [kind]: token };
    registerSecret(token);
    return token;
  }

  /** Stops scrubbing these tokens from logs (the daemon closed). */
  dispose(): void {
    forgetSecret(this.current.operator);
    forgetSecret(this.current.hook);
  }
}
