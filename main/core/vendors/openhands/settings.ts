/**
 * The OpenHands connection kept in the data directory: `openhands.json` (url and the steering
 * opt-in) and `openhands-key` (the session API key, mode 0600, like our own tokens). The key is
 * never logged: it is registered with the log scrubber when read, and the relay scrubs it from
 * every event (daemon secrets). A key file others can read is refused with the reason.
 */
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { err, ok, type Result } from '../../../../common/result';
import { registerSecret } from '../../logger';

export interface OpenHandsConnection {
  readonly url: string;
  readonly key: string;
  readonly instruct: boolean;
}

export const CONFIG_FILE = 'openhands.json';
export const KEY_FILE = 'openhands-key';

/** The base URL as given, checked: http(s) with a host, no credentials, no query. */
export function checkUrl(raw: string): Result<string> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return err('invalid-url', `not a URL: ${JSON.stringify(raw)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return err('invalid-url', `the agent server URL must be http(s), not ${u.protocol}`);
  if (u.username || u.password || u.search) return err('invalid-url', 'the agent server URL must carry no credentials or query (the key goes in --key-file)');
  return ok(u.origin + u.pathname.replace(/\/+$/, ''));
}

/** Reads a key file: refused when others can read it, or when it is empty. */
export function readKeyFile(path: string): Result<string> {
  try {
    const info = statSync(path);
    if ((info.mode & 0o077) !== 0)
      return err('unsafe', `${path} is readable by other users (mode ${(info.mode & 0o777).toString(8)}): chmod 600 it first`);
    const key = readFileSync(path, 'utf8').trim();
    if (key === '') return err('empty', `${path} is empty`);
    registerSecret(key);
    return ok(key);
  } catch (cause) {
    return err('absent', `cannot read ${path}: ${(cause as Error).message}`);
  }
}

/** Writes the connection (the key 0600 before anything is in it). */
export function saveConnection(dataDir: string, c: OpenHandsConnection): void {
  registerSecret(c.key);
  const keyPath = join(dataDir, KEY_FILE);
  writeFileSync(keyPath, '', { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(keyPath, `${c.key}\n`, { mode: 0o600 });
  writeFileSync(join(dataDir, CONFIG_FILE), `${JSON.stringify({ url: c.url, instruct: c.instruct }, null, 2)}\n`, { mode: 0o600 });
}

/** Forgets the connection (both files). */
export function clearConnection(dataDir: string): void {
  rmSync(join(dataDir, CONFIG_FILE), { force: true });
  rmSync(join(dataDir, KEY_FILE), { force: true });
}

/** The saved connection; null when none; an error in words when the files are unusable. */
export function loadConnection(dataDir: string): Result<OpenHandsConnection | null> {
  const configPath = join(dataDir, CONFIG_FILE);
  if (!existsSync(configPath)) return ok(null);
  let doc: { url?: unknown; instruct?: unknown };
  try {
    doc = JSON.parse(readFileSync(configPath, 'utf8')) as typeof doc;
  } catch (cause) {
    return err('invalid', `${configPath} is not JSON: ${(cause as Error).message}`);
  }
  const url = checkUrl(typeof doc.url === 'string' ? doc.url : '');
  if (!url.ok) return err('invalid', `${configPath}: ${url.error.message}`);
  const key = readKeyFile(join(dataDir, KEY_FILE));
  if (!key.ok) return err(key.error.code, key.error.message);
  return ok({ url: url.value, key: key.value, instruct: doc.instruct === true });
}
