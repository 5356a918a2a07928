/** AEP envelope types (AEP-0001 §5). Pure types and constants shared by every process. */

export const AEP_VERSION = '0.1';

export const SEVERITIES = ['debug', 'info', 'notice', 'warning', 'error', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const CAPTURES = ['none', 'metadata', 'redacted', 'full'] as const;
export type Capture = (typeof CAPTURES)[number];

/** One AEP event. Absent optional attributes are omitted, never null. */
export interface AepEvent {
  readonly aep: string;
  readonly id: string;
  readonly type: string;
  readonly subject?: string;
  readonly time: string;
  readonly source: string;
  readonly agent: string;
  readonly session?: string;
  readonly run?: string;
  readonly step?: string;
  readonly seq?: number;
  readonly epoch?: number;
  readonly cause?: string;
  readonly traceparent?: string;
  readonly severity?: Severity;
  readonly capture?: Capture;
  readonly data?: Readonly<Record<string, unknown>>;
  /** Extension attributes (AEP-0001 §5.4): lowercase alphanumeric names, scalar values. */
  readonly [extension: string]: unknown;
}

/** A resume position (AEP-0001 §7.6). */
export interface Position {
  readonly session: string;
  readonly epoch: number;
  readonly seq: number;
}

/** Severity rank for comparisons (AEP-0001 §8.1). */
export const severityRank = (s: Severity | undefined): number => SEVERITIES.indexOf(s ?? 'info');

/** Capture rank for comparisons (AEP-0001 §8.2). */
export const captureRank = (c: Capture | undefined): number => CAPTURES.indexOf(c ?? 'metadata');

/** True for agent-scoped events (AEP-0001 §5.2), which carry no session or seq. */
export const isAgentScoped = (type: string): boolean => type.startsWith('agent.');

/** True for control commands and vendor control verbs (AEP-0004 §2, §5). */
export const isCommandType = (type: string): boolean =>
  (type.startsWith('control.') && type !== 'control.accepted' && type !== 'control.rejected') ||
  /^x\.[a-z0-9-]+\.control\./.test(type);
