/** The shape of one numbered schema migration. */
import type { Database } from 'better-sqlite3';

/** One schema step. `version` is the number in the file name (0010 → 10) and becomes `user_version`. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** Runs inside the migration transaction; must not change journal mode or commit. */
  up(db: Database): void;
}
