/** The audit history: one append-only row per control action, refusal or configuration change. */

export const SURFACES = ['console', 'tray', 'cli', 'api', 'hook', 'daemon', 'installer', 'ws'] as const;
export type Surface = (typeof SURFACES)[number];

export interface AuditRow {
  readonly id: number;
  readonly time: string;
  /** Who acted: 'operator', a sender agent name, a vendor adapter, or 'daemon'. */
  readonly actor: string;
  readonly surface: Surface;
  /** What happened, e.g. 'instruct.command', 'instruct.accepted', 'instruct.delivered', 'steering.enabled', 'auth.refused'. */
  readonly action: string;
  readonly session: string | null;
  readonly commandId: string | null;
  /** 'ok', 'rejected', 'dropped', 'refused', 'error', … */
  readonly outcome: string;
  readonly detail: Readonly<Record<string, unknown>> | null;
}

export interface AuditQuery {
  readonly session?: string;
  readonly action?: string;
  readonly surface?: Surface;
  readonly outcome?: string;
  readonly before?: number;
  readonly limit?: number;
}

export interface AuditPage {
  readonly rows: readonly AuditRow[];
  /** Pass as `before` to get the next (older) page; null at the end. */
  readonly next: number | null;
  readonly total: number;
}
