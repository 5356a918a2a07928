/**
 * The process-level last resort of a daemon host: an exception or rejection nobody handled means
 * the daemon's state can no longer be trusted, so it is reported loudly (the error, its stack, and
 * that the process exits) and the process exits with a distinct code. It never continues silently.
 * Every binding has its own per-message guard, so reaching this is a defect to report. The host
 * passes its process (core touches no global itself).
 */

/** Exit code of a daemon stopped by an unhandled error. */
export const FATAL_EXIT_CODE = 70;

/** The parts of a Node process the last resort uses. */
export interface FatalProcess {
  on(
    event: 'uncaughtException' | 'unhandledRejection',
    listener: (error: unknown) => void,
  ): unknown;
  off(
    event: 'uncaughtException' | 'unhandledRejection',
    listener: (error: unknown) => void,
  ): unknown;
  exit(code: number): void;
}

/** Options of `installLastResort`. */
export interface LastResortOptions {
  /** Writes one line to the operator (stderr). */
  readonly write: (line: string) => void;
  /** The product name in the message. */
  readonly name?: string;
  /** Called after the report and before exit (e.g. the Electron host's error box); must not throw. */
  readonly beforeExit?: (message: string) => void;
}

const describe = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);

/** Installs the handlers on `proc`; returns their removal. */
export function installLastResort(proc: FatalProcess, options: LastResortOptions): () => void {
  const name = options.name ?? 'aep-companion';
  let fired = false;
  const fatal =
    (kind: string) =>
    (error: unknown): void => {
      if (fired) return;
      fired = true;
      const message = `${name}: FATAL ${kind}; the daemon stops now instead of running in an unknown state (exit ${FATAL_EXIT_CODE}): ${describe(error)}`;
      try {
        options.write(message);
        options.beforeExit?.(message);
      } finally {
        proc.exit(FATAL_EXIT_CODE);
      }
    };
  const onException = fatal('uncaught exception');
  const onRejection = fatal('unhandled promise rejection');
  proc.on('uncaughtException', onException);
  proc.on('unhandledRejection', onRejection);
  return () => {
    proc.off('uncaughtException', onException);
    proc.off('unhandledRejection', onRejection);
  };
}
