/**
 * The relay's durable history: session-scoped events, verbatim, with routing columns.
 *
 * Ordering. Each row carries an ordering key (ord_epoch, ord_seq, ord_tie) and the session's order
 * is that key, then the rowid `n`. A sequenced event's key is its own (epoch, seq, 0). A seq-less
 * session event (an inbound control command or another foreign-emitter event, AEP-0001 §5.2 and
 * AEP-0004 §4.4) has no position of its own, so at insert it takes the session's latest held key
 * (epoch, seq) (or (0, 0) when the session holds nothing yet) with tie = that key's tie + 1. It
 * therefore sorts right after the event the relay had last stored when it arrived, which is the
 * order a live consumer saw, and later backfill cannot move it. Resuming after (epoch, seq)
 * replays key > (epoch, seq, 0), so seq-less events anchored at the resume position are delivered
 * again (at-least-once, deduped on (source, id)) rather than lost.
 *
 * `event_sessions` keeps a per-session row count so retention trims without counting rows, and the
 * highest position ever trimmed (`trimmed_*`) so replay-exhausted can tell a gap from a loss.
 */
import type { Migration } from './migration';

/** Creates `events` and `event_sessions`. */
export const eventsMigration: Migration = {
  version: 10,
  name: 'events',
  up(db) {
    db.exec(`
      CREATE TABLE events (
        n         INTEGER PRIMARY KEY,
        source    TEXT    NOT NULL,
        id        TEXT    NOT NULL,
        type      TEXT    NOT NULL,
        session   TEXT    NOT NULL,
        agent     TEXT    NOT NULL,
        epoch     INTEGER,
        seq       INTEGER,
        severity  TEXT,
        time      TEXT    NOT NULL,
        cause     TEXT,
        ord_epoch INTEGER NOT NULL,
        ord_seq   INTEGER NOT NULL,
        ord_tie   INTEGER NOT NULL,
        json      TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX events_source_id ON events (source, id);
      CREATE INDEX events_session_order ON events (session, ord_epoch, ord_seq, ord_tie);

      CREATE TABLE event_sessions (
        session       TEXT    PRIMARY KEY,
        held          INTEGER NOT NULL,
        trimmed_epoch INTEGER,
        trimmed_seq   INTEGER
      ) WITHOUT ROWID;
    `);
  },
};
