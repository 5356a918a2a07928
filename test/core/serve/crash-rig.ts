/** What the serve crash tests share: a serve child on a data dir, and reading its stream until a condition holds. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AepEvent } from '../../../common/aep/envelope';
import { SseClient } from '../relay/harness';
import { ready, spawnServe, type ServeChild } from './serve-process';

/** Starts `serve --port 0` on `dataDir` (pushed onto `children` for cleanup); its URL and operator token. */
export async function startServe(dataDir: string, children: ServeChild[]): Promise<{ serve: ServeChild; url: string; operator: string }> {
  const serve = spawnServe(['--port', '0', '--data-dir', dataDir]);
  children.push(serve);
  const url = await ready(serve);
  return { serve, url, operator: readFileSync(join(dataDir, 'operator-token'), 'utf8').trim() };
}

/** Every stored event until `done` holds over them (history, then live). */
export async function streamUntil(url: string, token: string, done: (events: AepEvent[]) => boolean): Promise<AepEvent[]> {
  const sse = await SseClient.open(url, '/stream?from=all', { Authorization: `Bearer ${token}` });
  try {
    await sse.until((c) => done(c.events()));
    return sse.events();
  } finally {
    sse.close();
  }
}
