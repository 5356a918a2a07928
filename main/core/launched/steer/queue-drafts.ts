/** The events of queue changes a launched session's operator makes (edit, Stop's hold and its release). */
import type { Gate } from '../../vendors/capture-gate';
import type { EventDraft } from '../../steering/steering-types';

/** A queued message's new text, gated like the command's own text (its digest always). */
export function editedDraft(type: string, gate: Gate, commandId: string, text: string, edits: number): EventDraft {
  const shown = gate.text(text);
  return {
    type,
    capture: gate.ceiling,
    cause: commandId,
    data: { edits, text_digest: gate.digest(text), ...(shown === undefined ? {} : { text: shown }) },
  };
}

/** The queue held by Stop, or let flow again (cause = the command that held or released it, when known). */
export function holdDraft(type: string, cause: string | null, data: Record<string, unknown>): EventDraft {
  return { type, capture: 'metadata', ...(cause ? { cause } : {}), data };
}
