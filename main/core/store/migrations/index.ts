/** Every schema migration, in ascending version order. Append new ones at the end. */
import type { Migration } from './migration';
import { eventsMigration } from './0010-events';
import { settingsAuditMigration } from './0020-settings-audit';
import { sessionsMigration } from './0030-sessions';
import { steeringMigration } from './0040-steering';
import { retentionIndexesMigration } from './0060-retention-indexes';
import { launchedSessionsMigration } from './0070-launched-sessions';
import { agentInputsMigration } from './0080-agent-inputs';
import { eventSearchMigration } from './0090-event-search';
import { inputReceiptsMigration } from './0100-input-receipts';
import { appendIndexesMigration } from './0110-append-indexes';
import { sessionOrderMigration } from './0120-session-order';
import { commitJournalMigration } from './0130-commit-journal';
import { intakeMarksMigration } from './0140-intake-marks';
import { sessionRegistryMigration } from './0160-session-registry';
import { queuePausesMigration } from './0170-queue-pauses';
import { openhandsCursorsMigration } from './0190-openhands-cursors';
import { transcriptPositionsMigration } from './0200-transcript-positions';

export type { Migration } from './migration';

/** The ordered migration list `openDb` applies; the last version is the schema this code writes. */
export const migrations: readonly Migration[] = [
  eventsMigration,
  settingsAuditMigration,
  sessionsMigration,
  steeringMigration,
  retentionIndexesMigration,
  launchedSessionsMigration,
  agentInputsMigration,
  eventSearchMigration,
  inputReceiptsMigration,
  appendIndexesMigration,
  sessionOrderMigration,
  commitJournalMigration,
  intakeMarksMigration,
  sessionRegistryMigration,
  queuePausesMigration,
  openhandsCursorsMigration,
  transcriptPositionsMigration,
];
