/**
 * `aep-companion launch <agent> --cwd DIR [--prompt TEXT] [--json] [--data-dir DIR]`: asks the
 * running daemon to start a catalogue agent (claude-code, codex, qwen-code, gemini-cli) in DIR and
 * send the first prompt; prints the session id (`--json`: `{"session","agent","capabilities"}`) as
 * soon as the session exists and the prompt was sent (it does not wait for the turn). Exit codes:
 * 0 launched, 3 refused (not installed, bad directory, the agent failed to start), 2 usage,
 * 1 cannot reach the daemon.
 */
import { resolve } from 'node:path';
import { daemonUrl, helpOrRefusal, operatorToken, parseArgs, resolveDataDir } from '../locate-daemon';

const USAGE = 'usage: aep-companion launch <claude-code|codex|qwen-code|gemini-cli> --cwd DIR [--prompt TEXT] [--json] [--data-dir DIR]\n';

export async function run(args: string[]): Promise<number> {
  const parsed = parseArgs(args, ['data-dir', 'cwd', 'prompt']);
  const [agent, ...extra] = parsed.positionals;
  const refusal = helpOrRefusal('launch', { positionals: extra, options: parsed.options }, new Set(['data-dir', 'cwd', 'prompt', 'json']), USAGE);
  if (refusal !== null) return refusal;
  const cwd = parsed.options.get('cwd');
  const prompt = parsed.options.get('prompt');
  if (!agent || typeof cwd !== 'string' || cwd === '' || prompt === true) {
    process.stderr.write(USAGE);
    return 2;
  }
  const flag = parsed.options.get('data-dir');
  const dataDir = resolveDataDir(typeof flag === 'string' ? flag : undefined);
  const token = operatorToken(dataDir);
  if (!token) {
    process.stderr.write(`aep-companion launch: no operator token (AEP_OPERATOR_TOKEN, or ${dataDir}/operator-token)\n`);
    return 1;
  }
  const url = daemonUrl(dataDir);
  let res: Response;
  try {
    res = await fetch(new URL('/api/launch', url), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent, cwd: resolve(cwd), ...(typeof prompt === 'string' ? { prompt } : {}) }),
    });
  } catch (error) {
    process.stderr.write(`aep-companion launch: cannot reach the daemon at ${url}: ${(error as Error).message}\n`);
    return 1;
  }
  const body = (await res.json().catch(() => ({}))) as { session?: string; agent?: string; capabilities?: unknown; error?: string; detail?: string };
  if (res.status !== 200 || typeof body.session !== 'string') {
    process.stderr.write(`aep-companion launch: refused (${body.error ?? res.status}): ${body.detail ?? ''}\n`);
    return res.status === 401 || res.status === 403 ? 1 : 3;
  }
  if (parsed.options.get('json') === true) process.stdout.write(`${JSON.stringify({ session: body.session, agent: body.agent, capabilities: body.capabilities })}\n`);
  else process.stdout.write(`${body.session}\n`);
  return 0;
}
