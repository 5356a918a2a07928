/**
 * `aep-companion hook <vendor> [--data-dir DIR]`: the command-hook shim. Reads the vendor's hook
 * payload on stdin, posts it to the daemon's /hooks/<vendor>, prints the reply. Fail-open by
 * construction: whatever goes wrong (daemon down, slow, refusing), it prints the vendor's empty reply
 * (`{}`, or nothing at all for Codex) and exits 0 well inside the vendor's hook timeout. It imports
 * nothing of the daemon: it is timed against `node -e 0`.
 */
import { request, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { isVendorId } from '../../../common/vendors';
import { daemonUrl, hookToken, parseArgs, resolveDataDir } from '../locate-daemon';

/** The reply printed when there is nothing to say or nothing could be asked. */
export const EMPTY_REPLY = '{}';

/**
 * The empty reply of one vendor. Codex validates hook output against strict schemas and treats
 * empty stdout (exit 0) as the no-op, so it gets nothing at all; the others get `{}`. The installed
 * shim and its launcher (main/core/installer/shim-script.ts) print the same.
 */
export const emptyReplyFor = (vendor: string | undefined): string =>
  vendor === 'codex' ? '' : EMPTY_REPLY;

/** Deadline for an ordinary hook: far inside every vendor's timeout (Claude Code's SessionEnd budget is 1.5 s+). */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** Deadline when the permission loop may hold the reply (above the daemon's default hold of 50 s). */
export const HELD_TIMEOUT_MS = 58_000;

/** True for the answerable moments the daemon may hold while the operator decides. */
export function isHeldMoment(body: Buffer): boolean {
  try {
    const payload = JSON.parse(body.toString('utf8')) as {
      hook_event_name?: unknown;
      hookEventName?: unknown;
    };
    const moment = String(payload?.hook_event_name ?? payload?.hookEventName ?? '');
    return moment === 'PermissionRequest' || moment === 'Elicitation';
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

type Requester = (
  url: URL,
  options: RequestOptions,
  callback: (res: IncomingMessage) => void,
) => ClientRequest;

/**
 * Posts the payload; resolves with the text to print (never rejects). `empty` is printed on failure
 * and in place of a reply that is an empty object (the daemon's "nothing to say").
 */
export async function postHook(
  url: URL,
  token: string,
  body: Buffer,
  timeoutMs: number,
  empty = EMPTY_REPLY,
): Promise<{ out: string; problem: string | null }> {
  // TLS is loaded only for an https daemon URL: the plain loopback case stays as light as it can.
  const send: Requester =
    url.protocol === 'https:' ? (await import('node:https')).request : request;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (out: string, problem: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ out, problem });
    };
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': body.length,
    };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = send(url, { method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', (e) => finish(empty, e.message));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(parts).toString('utf8').trim();
        if (status < 200 || status >= 300)
          return finish(empty, `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`);
        if (text === '') return finish(empty, null);
        try {
          const parsed: unknown = JSON.parse(text);
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
            return finish(empty, 'reply is not a JSON object');
          if (Object.keys(parsed).length === 0) return finish(empty, null);
        } catch {
          return finish(empty, 'reply is not JSON');
        }
        finish(text, null);
      });
    });
    const timer = setTimeout(() => finish(empty, `no reply within ${timeoutMs} ms`), timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => finish(empty, e.code ?? e.message));
    req.end(body);
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
  try {
    const { positionals, options } = parseArgs(args, ['data-dir']);
    const vendor = positionals[0];
    empty = emptyReplyFor(vendor);
    out = empty;
    const body = await readStdin();
    if (!isVendorId(vendor)) {
      process.stderr.write(
        `aep-companion hook: unknown vendor '${vendor ?? ''}' (expected claude-code, codex, qwen-code, vscode or hermes)\n`,
      );
    } else {
      const flag = options.get('data-dir');
      const dataDir = resolveDataDir(typeof flag === 'string' ? flag : undefined, env);
      const timeoutMs =
        Number(env.AEP_HOOK_TIMEOUT_MS) ||
        (env.AEP_PERMISSIONS === '1' && isHeldMoment(body) ? HELD_TIMEOUT_MS : DEFAULT_TIMEOUT_MS);
      const result = await postHook(
        hookUrl(daemonUrl(dataDir, env), vendor, env),
        hookToken(dataDir, env),
        body,
        timeoutMs,
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
  await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
  return 0;
}
