/** The capture levels in plain words: what each shows in the console and stores on this machine. */
import type { Capture } from '../../../common/aep/envelope';

/** The level the wizard recommends (and the default for a user who skips it). */
export const RECOMMENDED_CAPTURE: Capture = 'redacted';

/** One level as the wizard and Settings explain it. */
export interface CaptureLevel {
  readonly level: Capture;
  readonly title: string;
  readonly shows: string;
}

/** Every level, least first. */
export const CAPTURE_LEVELS: readonly CaptureLevel[] = [
  {
    level: 'none',
    title: 'Activity only',
    shows: 'That a session, a prompt or a tool call happened, and when. No prompt text, no commands, no file names, no output.',
  },
  {
    level: 'metadata',
    title: 'Structure only',
    shows: 'Which tools ran, on which files, how long they took and whether they worked. Prompts, commands and outputs are not kept: the console shows "not captured" in their place.',
  },
  {
    level: 'redacted',
    title: 'The agent’s work, secrets scrubbed',
    shows: 'Your prompts, the commands the agent ran and their output, its edits and replies. Secrets, tokens, keys and your home folder path are replaced before anything is stored.',
  },
  {
    level: 'full',
    title: 'Everything, unaltered',
    shows: 'Everything the hooks send, as sent, including any password or key that appears in a command or its output.',
  },
];
