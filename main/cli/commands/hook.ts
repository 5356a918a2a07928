/**
 * `aep-companion hook <vendor> [--data-dir DIR]`: the command-hook shim. Reads the vendor's hook
 * payload on stdin, posts it to the daemon's /hooks/<vendor>, prints the reply. Fail-open by
 * construction: whatever goes wrong (daemon down, slow, refusing), it prints the vendor's empty reply
 * (`{}`, or nothing at all for Codex) and exits 0 well inside the vendor's hook timeout. It imports
 * nothing of the daemon: it is timed against `node -e 0`. Its per-vendor tables (held moments, empty
 * reply, held deadline) are built in from the vendor adapters and installers (../hook-tables.ts).
 * Its bundle (out/cli/hook.cjs) is also what the installer installs as the data directory's hook
 * shim (see `RunOptions.installedIn`).
 */
import { fstatSync, readSync, writeSync } from 'node:fs';
import { ORDINARY_HOOK_DEADLINE_MS } from '../../../common/hook-shim';
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

/** Deadline for an ordinary hook (common/hook-shim.ts). */
export const DEFAULT_TIMEOUT_MS = ORDINARY_HOOK_DEADLINE_MS;

/**
 * Deadline on a held moment of `vendor`: inside the vendor's own hook timeout there, from its
 * installer's `heldTimeoutS` (main/core/installer/shim-tables.ts); the ordinary one otherwise.
 */
export const heldTimeoutFor = (vendor: string, tables: HookTables | null = HOOK_TABLES): number =>
  tables && Object.hasOwn(tables.heldMs, vendor) ? tables.heldMs[vendor] : DEFAULT_TIMEOUT_MS;

/**
 * What the shim reached, as `AEP_HOOK_DOCTOR=1` prints it on stderr (one `{"aepHookDoctor":…}`
 * line, read by the installer's doctor): the URL posted to, the reply's status, the problem, or
 * whether the reply was a JSON object to print (`json`) or the daemon's "nothing to say" (`empty`).
 */
export interface HookReport {
  url?: string;
  status?: number;
  error?: string;
  reply?: 'json' | 'empty';
}

/** The outcome of a post: what to print, the problem if any, and the doctor's report. */
export interface HookResult {
  readonly out: string;
  readonly problem: string | null;
  readonly report: HookReport;
}

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

/**
 * Reads stdin to the end. A vendor pipes the payload and closes its end, so the shim reads the pipe
 * with plain `readSync` calls rather than building the `process.stdin` stream over it (about 1 ms
 * of the shim's run, measured against the stream). A character device (a terminal; `node:tty` is not loaded to
 * tell), or a descriptor that would block (`EAGAIN`: the vendor left it non-blocking), goes on
 * through `process.stdin` with what was read so far; a closed or missing stdin is an empty
 * payload, as the stream gives.
 */
export function readStdin(fd = 0): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let device = false;
  try {
    device = fstatSync(fd).isCharacterDevice();
  } catch {
    return Promise.resolve(Buffer.alloc(0));
  }
  if (!device) {
    try {
      for (;;) {
        const chunk = Buffer.allocUnsafe(65_536);
        const n = readSync(fd, chunk, 0, chunk.length, null);
        if (n === 0) return Promise.resolve(Buffer.concat(chunks));
        chunks.push(chunk.subarray(0, n));
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return Promise.resolve(Buffer.concat(chunks));
    }
  }
  return new Promise((resolve) => {
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks)));
    process.stdin.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * Writes `text` to stdout and resolves once it is written: with `writeSync` calls (as stdin, no
 * stream), going on through `process.stdout` with the rest when the descriptor would block.
 */
export function writeStdout(text: string, fd = 1): Promise<void> {
  let bytes = Buffer.from(text, 'utf8');
  try {
    while (bytes.length > 0) bytes = bytes.subarray(writeSync(fd, bytes));
    return Promise.resolve();
  } catch (error) {
    // A closed stdout (the vendor stopped listening) leaves nothing to write to.
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return Promise.resolve();
  }
  return new Promise((resolve) => {
    process.stdout.write(bytes, () => resolve());
  });
}

/** What the shim prints for a reply of `status` with body `text` from `url`, the problem if any, and the report. */
function interpret(url: string, status: number, body: string, empty: string): HookResult {
  const text = body.trim();
  const failed = (error: string, problem = error): HookResult => ({
    out: empty,
    problem,
    report: { url, status, error },
  });
  if (status < 200 || status >= 300)
    return failed(`HTTP ${status}`, `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  if (text === '') return { out: empty, problem: null, report: { url, status } };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return failed('reply is not a JSON object');
    if (Object.keys(parsed).length === 0)
      return { out: empty, problem: null, report: { url, status, reply: 'empty' } };
  } catch {
    return failed('reply is not JSON');
  }
  return { out: text, problem: null, report: { url, status, reply: 'json' } };
}

/** A failure before or without a reply: the empty reply, the problem, and the report. */
const failure = (empty: string, error: string, url?: string): HookResult => ({
  out: empty,
  problem: error,
  report: url === undefined ? { error } : { url, error },
});

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
): Promise<HookResult> {
  const where = url.toString();
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const payload = Promise.resolve(body);
  const deadline = (sent: Buffer): number =>
    typeof timeoutMs === 'function' ? timeoutMs(sent) : timeoutMs;
  if (url.protocol === 'https:') return postTls(url, headers, payload, deadline, empty);
  if (url.protocol !== 'http:') return failure(empty, `the daemon URL ${where} is not http: or https:`, where);
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
            resolve(failure(empty, `no reply within ${ms} ms`));
          }, ms);
        }),
      (reply) => {
        clearTimeout(timer);
        if (reply === 'abandoned') return;
        resolve(
          typeof reply === 'string'
            ? failure(empty, reply, where)
            : interpret(where, reply.status, reply.body, empty),
        );
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
): Promise<HookResult> {
  const { request } = await import('node:https');
  const where = url.toString();
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: HookResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = request(url, { method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', (e) => finish(failure(empty, e.message, where)));
      res.on('end', () =>
        finish(interpret(where, res.statusCode ?? 0, Buffer.concat(parts).toString('utf8'), empty)),
      );
    });
    req.on('error', (e: NodeJS.ErrnoException) => finish(failure(empty, e.code ?? e.message, where)));
    void body.then((payload) => {
      if (settled) return;
      const ms = deadline(payload);
      timer = setTimeout(() => finish(failure(empty, `no reply within ${ms} ms`)), ms);
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

/** How the shim was started. */
export interface RunOptions {
  /**
   * Set when the bundle runs as the installed shim (`<dataDir>/bin/aep-companion-hook.cjs`, started
   * by its launcher): the data directory to use when neither `--data-dir` nor
   * AEP_COMPANION_DATA_DIR names one (the parent of the script's folder). The installed shim
   * writes to stderr only the `AEP_HOOK_DOCTOR` report; `aep-companion hook` also says what went
   * wrong in words.
   */
  readonly installedIn?: string;
}

/** Runs the shim; always exits 0 (a hook must never fail the agent because of us). */
export async function run(args: string[], options: RunOptions = {}): Promise<number> {
  const env = process.env;
  const installed = options.installedIn !== undefined;
  // Refined once the arguments are parsed; a vendor-first command line is the usual shape.
  let empty = emptyReplyFor(args[0]);
  let result: HookResult = { out: empty, problem: null, report: {} };
  const fail = (problem: string, error = problem): HookResult => ({
    out: empty,
    problem,
    report: { error },
  });
  // Read to the end before printing (readStdin never rejects).
  const body = readStdin();
  try {
    const parsed = parseArgs(args, ['data-dir']);
    const vendor = parsed.positionals[0];
    empty = emptyReplyFor(vendor);
    result = { out: empty, problem: null, report: {} };
    if (!HOOK_TABLES) {
      result = fail('this build has no vendor tables (build it with npm run build:cli)');
    } else if (!isVendorId(vendor)) {
      const known = Object.keys(HOOK_TABLES.empty).join(', ');
      result = fail(`unknown vendor '${vendor ?? ''}' (expected ${known})`, `unknown vendor: ${vendor ?? ''}`);
    } else {
      const flag = parsed.options.get('data-dir');
      const dataDir =
        (typeof flag === 'string' && flag) ||
        (installed && !env.AEP_COMPANION_DATA_DIR ? options.installedIn : undefined) ||
        resolveDataDir(undefined, env);
      const timeoutFor = (payload: Buffer): number =>
        Number(env.AEP_HOOK_TIMEOUT_MS) ||
        (env.AEP_PERMISSIONS === '1' && isHeldMoment(payload, vendor)
          ? heldTimeoutFor(vendor)
          : DEFAULT_TIMEOUT_MS);
      let url: URL | null = null;
      try {
        url = hookUrl(daemonUrl(dataDir, env), vendor, env);
      } catch {
        result = fail(`the daemon URL ${daemonUrl(dataDir, env)} is not a URL`, 'bad daemon URL');
      }
      if (url) result = await postHook(url, hookToken(dataDir, env), body, timeoutFor, empty);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    result = fail(message);
  }
  await body;
  if (env.AEP_HOOK_DOCTOR === '1')
    process.stderr.write(`${JSON.stringify({ aepHookDoctor: result.report })}\n`);
  if (result.problem && !installed)
    process.stderr.write(`aep-companion hook: ${result.problem}; ${replying(empty)}\n`);
  await writeStdout(result.out);
  return 0;
}
