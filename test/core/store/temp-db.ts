/** Test helpers: real SQLite files in a fresh temp directory, and compact AEP event builders. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AepEvent } from '../../../common/aep/envelope';
import type { AdmitItem } from '../../../main/core/store/event-store';

/** A temp directory removed by `cleanup()`. */
export function tempDir(): { dir: string; file: (name?: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'aep-store-'));
  return {
    dir,
    file: (name = 'companion.db') => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

let counter = 0;

/** A session-scoped event; pass `seq: undefined` for a seq-less (foreign-emitter) event. */
export function event(fields: Partial<AepEvent> & { session?: string }): AepEvent {
  counter += 1;
  return {
    aep: '0.1',
    id: `evt-${counter}`,
    type: 'tool.started',
    time: '2026-11-29T19:00:00.000Z',
    source: 'urn:test:emitter',
    agent: 'test-agent',
    session: 's1',
    ...fields,
  };
}

/** Wraps events as admit items with their JSON text. */
export const items = (...events: AepEvent[]): AdmitItem[] =>
  events.map((e) => ({ event: e, json: JSON.stringify(e) }));
