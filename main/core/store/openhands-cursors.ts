/** The `openhands_cursors` table (migration 0190): where each watched conversation was read up to. */
import type { Database, Statement } from 'better-sqlite3';

/** The mapping's state kept with the cursor. */
export interface CursorMapping {
  readonly status: string | null;
  readonly run: string | null;
  readonly attention: string | null;
  readonly cards: number;
}

export interface CursorRow extends CursorMapping {
  readonly conversation: string;
  readonly lastId: string | null;
  readonly lastTs: string | null;
  readonly ended: boolean;
}

export class OpenHandsCursors {
  private readonly getOne: Statement;
  private readonly put: Statement;
  private readonly end: Statement;

  constructor(db: Database) {
    this.getOne = db.prepare('SELECT conversation, last_id AS lastId, last_ts AS lastTs, status, run, attention, cards, ended FROM openhands_cursors WHERE server = ? AND conversation = ?');
    this.put = db.prepare(
      'INSERT INTO openhands_cursors (server, conversation, last_id, last_ts, status, run, attention, cards) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (server, conversation) DO UPDATE SET last_id = excluded.last_id, last_ts = excluded.last_ts, status = excluded.status, run = excluded.run, attention = excluded.attention, cards = excluded.cards',
    );
    this.end = db.prepare('INSERT INTO openhands_cursors (server, conversation, ended) VALUES (?, ?, 1) ON CONFLICT (server, conversation) DO UPDATE SET ended = 1');
  }

  /** The conversation's row, or null when it was never seen from this server. */
  get(server: string, conversation: string): CursorRow | null {
    const row = this.getOne.get(server, conversation) as (Omit<CursorRow, 'ended'> & { ended: number }) | undefined;
    return row ? { ...row, ended: row.ended === 1 } : null;
  }

  /** Records the last event read and the mapping's state then (after its events were admitted). */
  set(server: string, conversation: string, lastId: string | null, lastTs: string | null, m: CursorMapping): void {
    this.put.run(server, conversation, lastId, lastTs, m.status, m.run, m.attention, m.cards);
  }

  /** Marks the conversation over (deleted): it is not watched again. */
  ended(server: string, conversation: string): void {
    this.end.run(server, conversation);
  }
}
