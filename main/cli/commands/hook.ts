/**
 * `aep-companion hook <vendor> [--data-dir DIR]`: the command-hook shim. Reads the vendor's hook
 * payload on stdin, posts it to the daemon's /hooks/<vendor>, prints the reply. Fail-open by
 * construction: whatever goes wrong (daemon down, slow, refusing), it prints the vendor's empty reply
 * (`{}`, or nothing at all for Codex) and exits 0 well inside the vendor's hook timeout. It imports
 * nothing of the daemon: it is timed against `node -e 0`. Its per-vendor tables (held moments, empty
 * reply) are built in from the vendor adapters (../hook-tables.ts), as the installed launcher's are.
 */
import { isVendorId } from '../../../common/vendors';
import { exchange } from '../hook-exchange';
import { HOOK_TABLES, type HookTables } from '../hook-tables';
import { daemonUrl, hookToken, parseArgs, resolveDataDir } from '../locate-daemon';

export { HOOK_TABLES } from '../hook-tables';

/** The reply printed for a vendor the tables do not know (and the default of `postHook`). */
export const EMPTY_REPLY = '{}';

/**
 * The empty reply of one vendor, from its adapter's `emptyCommandOutput`: nothing at all for Codex
 * (strict output schemas; empty stdout is its no-op), `{}` for the others.
 */
export const emptyReplyFor = (
  vendor: string | undefined,
  tables: HookTables | null = HOOK_TABLES,
): string =>
  tables && vendor !== undefined && Object.hasOwn(tables.empty, vendor)
    ? tables.empty[vendor]
    : EMPTY_REPLY;

/** Deadline for an ordinary hook: far inside every vendor's timeout (Claude Code's SessionEnd budget is 1.5 s+). */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** Deadline when the permission loop may hold the reply (above the daemon's default hold of 50 s). */
export const HELD_TIMEOUT_MS = 58_000;

/** True for the moments the daemon may hold while the operator decides, from the vendor's adapter. */
export function isHeldMoment(
  body: Buffer,
  vendor: string,
  tables: HookTables | null = HOOK_TABLES,
): boolean {
  const held = tables && Object.hasOwn(tables.held, vendor) ? tables.held[vendor] : [];
  if (held.length === 0) return false;
  try {
    const payload = JSON.parse(body.toString('utf8')) as {
      hook_event_name?: unknown;
      hookEventName?: unknown;
    };
    return held.includes(String(payload?.hook_event_name ?? payload?.hookEventName ?? ''));
  } catch {
    return false;
  }
}

/** Reads stdin to the end. */
function readStdin(): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks)));
    process.stdin.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

/** What the shim prints for a reply of `status` with body `text`, and the problem if any. */
function interpret(
  status: number,
  body: string,
  empty: string,
): { out: string; problem: string | null } {
  const text = body.trim();
  if (status < 200 || status >= 300)
    return { out: empty, problem: `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}` };
  if (text === '') return { out: empty, problem: null };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return { out: empty, problem: 'reply is not a JSON object' };
    if (Object.keys(parsed).length === 0) return { out: empty, problem: null };
  } catch {
    return { out: empty, problem: 'reply is not JSON' };
  }
  return { out: text, problem: null };
}

/**
 * Posts the payload; resolves with the text to print (never rejects). `empty` is printed on failure
 * and in place of a reply that is an empty object (the daemon's "nothing to say"). The connection
 * opens at once, while `body` (stdin) is still being read; the deadline, which may depend on the
 * payload, runs from when it is sent. A plain `http:` daemon is reached over a bare socket
 * (../hook-exchange.ts); TLS and `node:https` are loaded only for an `https:` daemon URL.
 */
export async function postHook(
  url: URL,
  token: string,
  body: Buffer | Promise<Buffer>,
  timeoutMs: number | ((payload: Buffer) => number),
  empty = EMPTY_REPLY,
): Promise<{ out: string; problem: string | null }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const payload = Promise.resolve(body);
  const deadline = (sent: Buffer): number =>
    typeof timeoutMs === 'function' ? timeoutMs(sent) : timeoutMs;
  if (url.protocol === 'https:') return postTls(url, headers, payload, deadline, empty);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const abandon = exchange(
      url,
      headers,
      payload,
      () =>
        void payload.then((sent) => {
          const ms = deadline(sent);
          timer = setTimeout(() => {
            abandon();
            resolve({ out: empty, problem: `no reply within ${ms} ms` });
          }, ms);
        }),
      (reply) => {
        clearTimeout(timer);
        if (reply === 'abandoned') return;
        resolve(typeof reply === 'string' ? { out: empty, problem: reply } : interpret(reply.status, reply.body, empty));
      },
    );
  });
}

/** The same post to an `https:` daemon, through node:https. */
async function postTls(
  url: URL,
  headers: Record<string, string>,
  body: Promise<Buffer>,
  deadline: (payload: Buffer) => number,
  empty: string,
): Promise<{ out: string; problem: string | null }> {
  const { request } = await import('node:https');
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: { out: string; problem: string | null }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = request(url, { method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', (e) => finish({ out: empty, problem: e.message }));
      res.on('end', () =>
        finish(interpret(res.statusCode ?? 0, Buffer.concat(parts).toString('utf8'), empty)),
      );
    });
    req.on('error', (e: NodeJS.ErrnoException) => finish({ out: empty, problem: e.code ?? e.message }));
    void body.then((payload) => {
      if (settled) return;
      const ms = deadline(payload);
      timer = setTimeout(() => finish({ out: empty, problem: `no reply within ${ms} ms` }), ms);
      req.setHeader('content-length', payload.length);
      req.end(payload);
    });
  });
}

/** Builds the hook URL with the opt-ins of the environment. */
export function hookUrl(base: string, vendor: string, env: NodeJS.ProcessEnv): URL {
  const url = new URL(`/hooks/${vendor}`, base);
  if (env.AEP_INSTRUCT === '1') url.searchParams.set('instruct', '1');
  if (env.AEP_PERMISSIONS === '1') url.searchParams.set('permissions', '1');
  return url;
}

const replying = (empty: string): string =>
  empty === '' ? 'replying with empty output' : `replying ${empty}`;

/** Runs the shim; always exits 0 (a hook must never fail the agent because of us). */
export async function run(args: string[]): Promise<number> {
  const env = process.env;
  // Refined once the arguments are parsed; a vendor-first command line is the usual shape.
  let empty = emptyReplyFor(args[0]);
  let out = empty;
  // Read while the connection opens (readStdin never rejects); read to the end before printing.
  const body = readStdin();
  try {
    const { positionals, options } = parseArgs(args, ['data-dir']);
    const vendor = positionals[0];
    empty = emptyReplyFor(vendor);
    out = empty;
    if (!HOOK_TABLES) {
      process.stderr.write(
        `aep-companion hook: this build has no vendor tables (build it with npm run build:cli); ${replying(empty)}\n`,
      );
    } else if (!isVendorId(vendor)) {
      process.stderr.write(
        `aep-companion hook: unknown vendor '${vendor ?? ''}' (expected ${Object.keys(HOOK_TABLES.empty).join(', ')})\n`,
      );
    } else {
      const flag = options.get('data-dir');
      const dataDir = resolveDataDir(typeof flag === 'string' ? flag : undefined, env);
      const timeoutFor = (payload: Buffer): number =>
        Number(env.AEP_HOOK_TIMEOUT_MS) ||
        (env.AEP_PERMISSIONS === '1' && isHeldMoment(payload, vendor)
          ? HELD_TIMEOUT_MS
          : DEFAULT_TIMEOUT_MS);
      const result = await postHook(
        hookUrl(daemonUrl(dataDir, env), vendor, env),
        hookToken(dataDir, env),
        body,
        timeoutFor,
        empty,
      );
      out = result.out;
      if (result.problem)
        process.stderr.write(`aep-companion hook: ${result.problem}; ${replying(empty)}\n`);
    }
  } catch (error) {
    process.stderr.write(
      `aep-companion hook: ${error instanceof Error ? error.message : String(error)}; ${replying(empty)}\n`,
    );
    out = empty;
  }
  await body;
  await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
  return 0;
}
