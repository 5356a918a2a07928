/** Running one synthetic hook the way the vendor would: POST to the installed URL, or run the installed command. */
import { spawn } from 'node:child_process';
import { TOKEN_VAR } from './hook-target';
import { cleanShellEnv, type RunnableHook } from './doctor-command';
import { childEnv, type InstallerEnv } from './installer-env';
import type { HookProbe } from './vendor-installer';

/** What one synthetic hook produced. */
export interface ProbeOutcome {
  /** HTTP status from the daemon, when one was seen. */
  readonly status: number | null;
  /** Connection or process error, when there was one. */
  readonly error: string | null;
  /** The reply body as the vendor would see it. */
  readonly reply: string;
  /** The hook route the launcher reached (command probes), when it said. */
  readonly url?: string;
}

/** Whether a reply parses the way vendors parse it (empty is a valid no-op). */
export function replyParses(reply: string): boolean {
  if (reply.trim() === '') return true;
  try {
    JSON.parse(reply);
    return true;
  } catch {
    return false;
  }
}

/** Fills `$AEP_HOOK_TOKEN` / `${AEP_HOOK_TOKEN}` in a header the way the vendor interpolates it. */
export function interpolateToken(value: string, token: string): string {
  return value.replaceAll(`\${${TOKEN_VAR}}`, token).replaceAll(`$${TOKEN_VAR}`, token);
}

/**
 * POSTs the payload to an installed HTTP hook route, always at the daemon's own address
 * (`daemonUrl`): the hook token never goes to whatever port a config names.
 */
export async function probeHttp(
  probe: Extract<HookProbe, { kind: 'http' }>,
  payload: unknown,
  token: string,
  daemonUrl: string,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const installed = new URL(probe.url);
  const target = new URL(`${installed.pathname}${installed.search}`, daemonUrl);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(probe.headers))
    headers[k] = interpolateToken(String(v), token);
  try {
    const res = await fetch(target, {
      method: 'POST',
      headers,
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, error: null, reply: await res.text() };
  } catch (cause) {
    const code =
      ((cause as { cause?: { code?: string } }).cause?.code ?? (cause as Error).name) || 'error';
    return { status: null, error: code, reply: '' };
  }
}

/** Starts an installed hook program (no shell) with the payload on stdin; the shim reports what it reached on stderr. */
export function probeCommand(
  hook: RunnableHook,
  payload: unknown,
  env: InstallerEnv,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const processEnv = { ...cleanShellEnv(childEnv(env)), ...hook.env, AEP_HOOK_DOCTOR: '1' };
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const settle = (outcome: ProbeOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const child = spawn(hook.file, [...hook.args], {
      env: processEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle({ status: null, error: `no answer within ${timeoutMs} ms`, reply: stdout });
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', (e) => settle({ status: null, error: e.message, reply: '' }));
    child.on('close', (code) => {
      const line = stderr.split('\n').find((l) => l.startsWith('{"aepHookDoctor"'));
      let report: { status?: number; error?: string; url?: string } = {};
      try {
        report = line ? (JSON.parse(line) as { aepHookDoctor: typeof report }).aepHookDoctor : {};
      } catch {
        report = {};
      }
      const reached = typeof report.url === 'string' ? { url: report.url } : {};
      if (code !== 0)
        return settle({
          status: report.status ?? null,
          error: `the command exited with ${code}: ${stderr.trim().slice(0, 300)}`,
          reply: stdout,
          ...reached,
        });
      if (!line)
        return settle({
          status: null,
          error: 'the command did not run the AEP Companion hook shim',
          reply: stdout,
        });
      settle({
        status: report.status ?? null,
        error: report.error ?? null,
        reply: stdout,
        ...reached,
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(payload));
  });
}
