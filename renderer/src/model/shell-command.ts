/**
 * The command a tool ran, as the operator would have typed it: the `command`/`cmd` argument (a
 * string or an argv), or a tool titled by its own command line (Codex), without the shell wrapper
 * an agent puts around it (`/bin/bash -lc '…'`, `sh -c "…"`, `zsh -lc …`).
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { toolName } from './event-types';

const WRAPPER = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z|da)?sh\s+-(?:l?c|c?l)\s+([\s\S]+)$/;

/** A command line without its shell wrapper; the line itself when it has none. */
export function unwrapShell(command: string): string {
  const m = WRAPPER.exec(command.trim());
  if (!m) return command;
  const inner = m[1].trim();
  if (inner.length >= 2 && inner.startsWith("'") && inner.endsWith("'")) return inner.slice(1, -1).replace(/'\\''/g, "'");
  if (inner.length >= 2 && inner.startsWith('"') && inner.endsWith('"')) return inner.slice(1, -1).replace(/\\(["\\$`])/g, '$1');
  return inner;
}

/** The command of an argv: a wrapper argv (`bash -lc X`) gives X. */
function fromArgv(argv: readonly string[]): string {
  if (argv.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]) && /^-(l?c|c?l)$/.test(argv[1])) return argv[2];
  return argv.join(' ');
}

/** The command a tool event ran, unwrapped, or undefined when it ran none (or it was not captured). */
export function toolCommand(e: AepEvent | undefined): string | undefined {
  if (e === undefined) return undefined;
  const args = (e.data?.args ?? e.data?.args_redacted) as Record<string, unknown> | undefined;
  const c = args && typeof args === 'object' ? (args.command ?? args.cmd) : undefined;
  if (typeof c === 'string' && c.trim() !== '') return unwrapShell(c);
  if (Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === 'string')) return unwrapShell(fromArgv(c as string[]));
  const name = toolName(e);
  return WRAPPER.test(name.trim()) ? unwrapShell(name) : undefined;
}
