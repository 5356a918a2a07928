/** Run bookkeeping shared by the mappings: one open run per session, closed by its terminal event. */
import type { Severity } from '../../../common/aep/envelope';
import { mapped, runTerminal } from './event-builders';
import { NO_OPEN_TOOLS, OpenTools, type MappedEvent, type MappingContext, type MappingOutcome, type MappingState } from './types';

/**
 * Opens `run`. A different run still open was interrupted (its stop hook never came), so it is
 * closed first as `run.cancelled` by the user: a run never stays open forever.
 */
export const openRun = (
  state: MappingState,
  run: string,
  started: MappedEvent,
  context: MappingContext,
): MappingOutcome => {
  const events: MappedEvent[] = [];
  if (state.run !== null && state.run !== run) {
    events.push(runTerminal('run.cancelled', { by: 'user' }, context, state.run));
  }
  events.push(started);
  return { events, state: { run, openTools: NO_OPEN_TOOLS } };
};

/** Closes the open run (or the vendor-named one) with its terminal event. */
export const closeRun = (
  state: MappingState,
  type: 'run.finished' | 'run.failed' | 'run.cancelled',
  data: Record<string, unknown>,
  context: MappingContext,
  run: string | null = state.run,
  severity?: Severity,
): MappingOutcome => ({
  events: [runTerminal(type, data, context, run, severity)],
  state: {
    run: state.run === run ? null : state.run,
    openTools: state.run === run ? NO_OPEN_TOOLS : state.openTools,
  },
});

/**
 * Open tool calls remembered per session; the oldest falls off first. A call whose settling hook
 * never came (or came before its request, as concurrent hooks may) is otherwise held forever, and
 * every later request copies it again: unbounded memory and a copy per hook that grows with it.
 */
export const MAX_OPEN_TOOLS = 32;

/** Records a requested tool call as open (at most MAX_OPEN_TOOLS, oldest dropped first). */
export const withOpenTool = (
  state: MappingState,
  callId: string | undefined,
  name: string,
): MappingState => {
  if (callId === undefined) return state;
  return { run: state.run, openTools: OpenTools.of(state.openTools).with(callId, name, MAX_OPEN_TOOLS) };
};

/** Settles a tool call. */
export const withoutTool = (state: MappingState, callId: string | undefined): MappingState => {
  if (callId === undefined || !state.openTools.has(callId)) return state;
  return { run: state.run, openTools: OpenTools.of(state.openTools).without(callId) };
};

/** An outcome with the given events and an unchanged or updated state. */
export const outcome = (state: MappingState, ...events: MappedEvent[]): MappingOutcome => ({
  events,
  state,
});

/** The session ended: its open run (if any) is left to the session terminal, and the state resets. */
export const endSession = (
  context: MappingContext,
  data: Record<string, unknown>,
): MappingOutcome => ({
  events: [mapped('session.ended', context, data)],
  state: { run: null, openTools: NO_OPEN_TOOLS },
});
