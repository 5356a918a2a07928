/** The `transcript_positions` table: where each observed session's transcript was read up to. */
import type { Database } from 'better-sqlite3';
import type { VendorId } from '../../../common/vendors';

/** Where a session's transcript was read up to. */
export interface TailPosition {
  readonly path: string;
  readonly ino: number;
  /** The byte offset after the last complete line read. */
  readonly offset: number;
}

/** Durable positions (the daemon keeps them in SQLite; tests may keep them in memory). */
export interface PositionStore {
  get(vendor: VendorId, session: string): TailPosition | undefined;
  set(vendor: VendorId, session: string, position: TailPosition): void;
}

/** Positions kept in SQLite (written in the store's next commit, after the facts they follow). */
export function sqlitePositions(db: Database): PositionStore {
  const get = db.prepare('SELECT path, ino, offset FROM transcript_positions WHERE vendor = ? AND session = ?');
  const set = db.prepare(
    `INSERT INTO transcript_positions (vendor, session, path, ino, offset) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (vendor, session) DO UPDATE SET path = excluded.path, ino = excluded.ino, offset = excluded.offset`,
  );
  return {
    get: (vendor: VendorId, session: string) => get.get(vendor, session) as TailPosition | undefined,
    set: (vendor: VendorId, session: string, p: TailPosition) => void set.run(vendor, session, p.path, p.ino, p.offset),
  };
}
