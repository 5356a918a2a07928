/**
 * The seen-by-agent receipt of a steered message (mid-turn steering): `received_at_ms` on its
 * `agent_inputs` row, set once when the agent itself showed that it took the message in (Codex
 * app-server: the `userMessage` item that appears on the steered turn with the steer's text).
 * Null for every other message, and for a steer whose turn ended before the agent showed it.
 */
import type { Migration } from './migration';

/** Adds `agent_inputs.received_at_ms`. */
export const inputReceiptsMigration: Migration = {
  version: 100,
  name: 'input-receipts',
  up(db) {
    db.exec('ALTER TABLE agent_inputs ADD COLUMN received_at_ms INTEGER');
  },
};
