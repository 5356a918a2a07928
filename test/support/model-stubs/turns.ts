/**
 * A scripted conversation for the model-API stubs. The stub picks the turn by how many tool
 * results the request already carries (0 → first turn, 1 → second…), so the choice depends only
 * on the conversation the CLI sends, not on how many side requests it made or retried.
 */

/** One scripted model response: call the CLI's shell tool, or answer with final text. */
export type Turn = { readonly shell: string } | { readonly text: string };

/** The default script: run `echo hi` in the shell, then finish. */
export const SHELL_THEN_TEXT: readonly Turn[] = [{ shell: 'echo hi' }, { text: 'All done.' }];

/** The turn for a conversation that already holds `toolResults` tool results (last turn repeats as text). */
export function pickTurn(turns: readonly Turn[], toolResults: number): Turn {
  return turns[toolResults] ?? { text: 'All done.' };
}
