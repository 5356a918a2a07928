/**
 * The Cline hub discovery file (`<~/.cline>/data/locks/hub/production.json`, written by the CLI,
 * mode 0600): where the hub listens and its auth token. Read fresh before every connection (a
 * restarted hub has a new port and token); a file others can read, a non-loopback URL, or a protocol
 * version this client does not speak is refused with the reason, and the tap stays on hooks only.
 */
import { readFile, stat } from 'node:fs/promises';
import { err, ok, type Result } from '../../../../../common/result';

/** The hub protocol version this client speaks. */
export const HUB_PROTOCOL = 'v1';

/** What the discovery file says. */
export interface HubDiscovery {
  readonly url: string;
  readonly authToken: string;
  readonly hubId: string | null;
  readonly pid: number | null;
  readonly coreVersion: string | null;
}

/** Why the hub cannot be used: no file, a file we must not trust, a malformed one, a protocol we do not speak. */
export type DiscoveryErrorCode = 'absent' | 'unsafe' | 'invalid' | 'version-mismatch';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

const field = (value: Record<string, unknown>, key: string): string | null =>
  typeof value[key] === 'string' && value[key] !== '' ? (value[key] as string) : null;

/** Parses discovery JSON (exported for tests). */
export function parseDiscovery(
  text: string,
  path: string,
): Result<HubDiscovery, DiscoveryErrorCode> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return err('invalid', `${path} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return err('invalid', `${path} is not a JSON object`);
  const doc = value as Record<string, unknown>;
  const url = field(doc, 'url');
  const authToken = field(doc, 'authToken');
  if (url === null || authToken === null)
    return err('invalid', `${path} names no url or authToken`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return err('invalid', `${path} names an unparseable url`);
  }
  if (parsed.protocol !== 'ws:' || !LOOPBACK.has(parsed.hostname))
    return err('invalid', `${path} names ${url}, not a loopback WebSocket URL: not used`);
  const min = field(doc, 'minClientProtocolVersion') ?? field(doc, 'protocolVersion');
  const max = field(doc, 'maxClientProtocolVersion') ?? field(doc, 'protocolVersion');
  if ((min !== null && min > HUB_PROTOCOL) || (max !== null && max < HUB_PROTOCOL))
    return err(
      'version-mismatch',
      `the Cline hub speaks protocol ${min}–${max}; this companion speaks ${HUB_PROTOCOL}`,
    );
  return ok({
    url,
    authToken,
    hubId: field(doc, 'hubId'),
    pid: typeof doc.pid === 'number' ? doc.pid : null,
    coreVersion: field(doc, 'coreVersion'),
  });
}

/** Reads and checks the discovery file at `path` (the host resolves it; core never reads env or home). */
export async function readDiscovery(
  path: string,
): Promise<Result<HubDiscovery, DiscoveryErrorCode>> {
  let text: string;
  try {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0)
      return err(
        'unsafe',
        `${path} is readable by other users (mode ${(info.mode & 0o777).toString(8)}): its token is not used`,
      );
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    return err(
      'absent',
      code === 'ENOENT'
        ? `no Cline hub is running (${path} is absent)`
        : `cannot read ${path}: ${(cause as Error).message}`,
    );
  }
  return parseDiscovery(text, path);
}
