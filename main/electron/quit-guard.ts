/**
 * Quitting while launched agent sessions run asks first: quitting drains the daemon, which ends
 * every launched session. `quitPrompt` decides (no sessions: quit at once; else the question),
 * `quitGuard` is the `before-quit` handler around it. No `electron` import: the shell passes the
 * dialog and `app.quit` in.
 */

/** What the guard needs to know about one running launched session. */
export interface RunningSession {
  readonly session: string;
  /** The agent's display name, e.g. "Claude Code". */
  readonly name: string;
}

/** The confirmation, in `dialog.showMessageBox` terms; button 0 quits. */
export interface QuitPrompt {
  readonly type: 'question';
  readonly buttons: readonly [string, string];
  readonly defaultId: 1;
  readonly cancelId: 1;
  readonly title: string;
  readonly message: string;
  readonly detail: string;
}

/** Null when nothing launched runs (quit at once); else the question to ask. */
export function quitPrompt(running: readonly RunningSession[]): QuitPrompt | null {
  if (running.length === 0) return null;
  const counts = new Map<string, number>();
  for (const s of running) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  const agents = [...counts].map(([name, n]) => (n === 1 ? name : `${name} ×${n}`)).join(', ');
  const sessions = running.length === 1 ? 'One launched agent session is' : `${running.length} launched agent sessions are`;
  return {
    type: 'question',
    buttons: ['Quit and end them', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    title: 'Quit AEP Companion?',
    message: `${sessions} still running (${agents}).`,
    detail: 'Quitting ends them: each is cancelled and closed, and its history is kept. Sessions whose agent supports it can be resumed after the next start.',
  };
}

/** What the `before-quit` handler works with. */
export interface QuitGuardDeps {
  /** The launched sessions running now. */
  readonly running: () => readonly RunningSession[];
  /** Shows the prompt; resolves with the button index (or rejects when no dialog could be shown). */
  readonly ask: (prompt: QuitPrompt) => Promise<number>;
  /** Starts the quit again (`app.quit`), after a confirmation. */
  readonly quit: () => void;
  /** The quit goes ahead (windows may close for good). */
  readonly proceed: () => void;
  readonly onError: (message: string) => void;
}

/** The `before-quit` handler: holds the quit while launched sessions run until the user confirms. */
export function quitGuard(deps: QuitGuardDeps): (event: { preventDefault(): void }) => void {
  let confirmed = false;
  let asking = false;
  return (event) => {
    if (!confirmed) {
      // A second Quit while the question is open waits for that answer.
      if (asking) return event.preventDefault();
      const prompt = quitPrompt(deps.running());
      if (prompt !== null) {
        event.preventDefault();
        asking = true;
        deps
          .ask(prompt)
          .then(
            (answer) => {
              if (answer !== 0) return;
              confirmed = true;
              deps.quit();
            },
            (e: Error) => {
              // No question could be shown: the user asked to quit, so the quit goes ahead.
              deps.onError(`could not ask before quitting: ${e.message}`);
              confirmed = true;
              deps.quit();
            },
          )
          .finally(() => (asking = false));
        return;
      }
    }
    deps.proceed();
  };
}
