/**
 * Run under another runtime (`node --import tsx`): the daemon core with SQLite's binding given as
 * `nativeBinding` (argv[3]; empty: the package's own build). Starts the daemon on a temp data
 * directory, reads /healthz, turns steering on through /api (a committed write), closes, reopens
 * the database and prints one JSON line.
 * A failure prints `{ ok: false, error }`.
 */
import { join } from 'node:path';
import { startDaemon } from '../../main/core/daemon';
import { openDb } from '../../main/core/store/open-db';
import { SettingsRepo } from '../../main/core/store/settings-repo';

const dataDir = process.argv[2];
const nativeBinding = process.argv[3] || undefined;

async function probe(): Promise<Record<string, unknown>> {
  const daemon = await startDaemon({ dataDir, port: 0, nativeBinding });
  let health: unknown;
  let steering: unknown;
  try {
    const auth = { authorization: `Bearer ${daemon.tokens.operator}` };
    health = await (await fetch(`${daemon.url}/healthz`, { headers: auth })).json();
    const put = await fetch(`${daemon.url}/api/steering`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true, surface: 'cli' }),
    });
    steering = { status: put.status, body: await put.json() };
  } finally {
    await daemon.close();
  }
  const file = join(dataDir, 'companion.db');
  const db = openDb(file, { nativeBinding });
  const steeringStored = new SettingsRepo(db).get('features.steering');
  db.close();
  return { health, steering, steeringStored };
}

probe()
  .then((result) =>
    process.stdout.write(
      `${JSON.stringify({ ok: true, abi: process.versions.modules, node: process.versions.node, ...result })}\n`,
    ),
  )
  .catch((e: Error) =>
    process.stdout.write(
      `${JSON.stringify({ ok: false, abi: process.versions.modules, error: e.message })}\n`,
    ),
  );
