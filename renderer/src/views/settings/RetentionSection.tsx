/**
 * Retention settings: how many events each session keeps, and how many days events, sessions,
 * steering records and the audit log are kept (`retention.*`, applied by the daemon's hourly
 * sweep). Each field saves on its own through PATCH /api/settings.
 */
import type { Settings } from '../../../../common/settings';
import { NumberSetting, Row, type SaveResult } from './setting-controls';

type RetentionKey = Extract<keyof Settings, `retention.${string}`>;

/** The fields, in the order the view shows them. */
export const RETENTION_FIELDS: readonly { key: RetentionKey; id: string; label: string; unit: string; help: string }[] = [
  { key: 'retention.maxEventsPerSession', id: 'retention', label: 'Events per session', unit: 'events', help: 'The newest events of each session are kept; older ones are removed first.' },
  { key: 'retention.eventDays', id: 'retention-event-days', label: 'Events', unit: 'days', help: 'Events older than this are removed, in every session.' },
  { key: 'retention.sessionDays', id: 'retention-session-days', label: 'Inactive sessions', unit: 'days', help: 'A session not seen for this long is removed with its events.' },
  { key: 'retention.endedSessionDays', id: 'retention-ended-days', label: 'Ended sessions', unit: 'days', help: 'An ended session is removed with its events this long after it ended.' },
  { key: 'retention.steeringDays', id: 'retention-steering-days', label: 'Steering records', unit: 'days', help: 'Settled instructions and recorded command answers.' },
  { key: 'retention.auditDays', id: 'retention-audit-days', label: 'Audit log', unit: 'days', help: 'Audit rows are kept the longest: they record who did what.' },
];

/** The retention rows of the settings view. */
export function RetentionRows({ settings, save }: { settings: Settings; save: (patch: Partial<Settings>, what: string) => Promise<SaveResult> }) {
  return (
    <>
      {RETENTION_FIELDS.map((f) => (
        <Row key={f.key} label={f.label} htmlFor={f.id} help={f.help}>
          <NumberSetting id={f.id} value={settings[f.key]} unit={f.unit} min={1} onSave={(v) => save({ [f.key]: v } as Partial<Settings>, `Retention of ${f.label.toLowerCase()}`)} />
        </Row>
      ))}
    </>
  );
}
