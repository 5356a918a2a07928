/**
 * The benchmark's yardstick: the same rows written with plain better-sqlite3 batched transactions
 * into the same schema and pragmas, with no group commit, validation, ordering lookups or retention.
 * Durable ingest is reported as a ratio to this figure measured in the same run.
 */
import type { AdmitItem } from '../main/core/store/event-store';
import { openDb } from '../main/core/store/open-db';

/** What the baseline measured. */
export interface RawInsertResult {
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
}

/**
 * Inserts `items` into a fresh database at `file` (which must not exist yet) in transactions of
 * `batchSize` rows and returns the rate. The database is closed afterwards.
 */
export function rawInsertBaseline(
  file: string,
  items: readonly AdmitItem[],
  batchSize = 1_000,
): RawInsertResult {
  const db = openDb(file);
  try {
    const insert = db.prepare(
      `INSERT INTO events (source, id, type, session, agent, epoch, seq, severity, time, cause, ord_epoch, ord_seq, ord_tie, json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const writeBatch = db.transaction((batch: readonly AdmitItem[]) => {
      for (const { event, json } of batch) {
        insert.run(
          event.source,
          event.id,
          event.type,
          event.session ?? '',
          event.agent,
          event.epoch ?? null,
          event.seq ?? null,
          event.severity ?? null,
          event.time,
          typeof event.cause === 'string' ? event.cause : null,
          event.epoch ?? 0,
          event.seq ?? 0,
          0,
          json,
        );
      }
    });
    const size = Math.max(1, Math.trunc(batchSize));
    const started = process.hrtime.bigint();
    for (let i = 0; i < items.length; i += size) writeBatch(items.slice(i, i + size));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      events: items.length,
      seconds,
      eventsPerSecond: seconds > 0 ? items.length / seconds : Infinity,
    };
  } finally {
    db.close();
  }
}
