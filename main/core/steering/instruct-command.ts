/** Reads an `x.{vendor}.control.instruct` command: its text, and who sent it from which surface. */
import type { AepEvent } from '../../../common/aep/envelope';
import { SURFACES, type Surface } from '../../../common/audit';
import { err, ok, type Result } from '../../../common/result';

/** Who sent a command: the sender's agent name and the surface it rode (the `surface` extension attribute). */
export interface CommandOrigin {
  readonly actor: string;
  readonly surface: Surface;
}

/** Reads the sender of any command; an absent or unknown surface counts as the WebSocket binding. */
export function commandOrigin(command: AepEvent): CommandOrigin {
  const surface = command['surface'];
  return {
    actor: typeof command.agent === 'string' && command.agent !== '' ? command.agent : 'unknown',
    surface: typeof surface === 'string' && (SURFACES as readonly string[]).includes(surface) ? (surface as Surface) : 'ws',
  };
}

/** Why an instruction text is refused. */
export type InstructTextError = 'empty' | 'oversize' | 'not-text';

/**
 * The instruction text of a command, refused when missing, blank, or longer than `maxChars`
 * (nothing is ever truncated: an oversize text is the sender's to shorten).
 */
export function instructText(command: AepEvent, maxChars: number): Result<string, InstructTextError> {
  const text = command.data?.['text'];
  if (typeof text !== 'string') return err('not-text', 'data.text must be a string');
  if (text.trim() === '') return err('empty', 'the instruction text is empty');
  if (text.length > maxChars) return err('oversize', `the instruction text has ${text.length} characters; the limit for this vendor is ${maxChars}`);
  return ok(text);
}
