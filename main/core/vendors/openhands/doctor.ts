/**
 * The doctor's OpenHands checks: the saved connection is usable (a 0600 key file), the agent server
 * answers `/server_info` with a version this bridge knows, and the key is accepted on `/api`.
 */
import type { DoctorFinding } from '../../../../common/api';
import { OpenHandsError, OpenHandsRest } from './client';
import { loadConnection, type OpenHandsConnection } from './settings';
import { versionRefusal } from './wire';

const finding = (check: string, ok: boolean, message: string, remedy: string | null = null): DoctorFinding => ({ vendor: null, check: `openhands ${check}`, ok, message, remedy });

/** Probes one connection: reachability and version, then the key. */
export async function probeOpenHands(conn: OpenHandsConnection): Promise<DoctorFinding[]> {
  const rest = new OpenHandsRest(conn.url, conn.key);
  const out: DoctorFinding[] = [];
  try {
    const info = await rest.serverInfo();
    out.push(finding('reachable', true, `${conn.url} answers`));
    const refusal = versionRefusal(info.version);
    out.push(finding('version', refusal === null, refusal ?? `openhands-agent-server ${info.version}`, refusal === null ? null : 'run an openhands-agent-server 1.x (1.37 or later)'));
    if (refusal !== null) return out;
  } catch (error) {
    out.push(finding('reachable', false, (error as Error).message, `start the agent server, or connect to its URL: aep-companion openhands connect --url URL --key-file FILE`));
    return out;
  }
  try {
    await rest.conversations();
    out.push(finding('key', true, 'the session API key is accepted'));
  } catch (error) {
    const refused = error instanceof OpenHandsError && error.status === 401;
    out.push(finding('key', false, (error as Error).message, refused ? 'connect again with the server\'s session API key (--key-file)' : null));
  }
  return out;
}

/** The doctor's findings for the data directory's saved connection (none when none is saved). */
export async function openHandsDoctor(dataDir: string): Promise<DoctorFinding[]> {
  const saved = loadConnection(dataDir);
  if (!saved.ok) return [finding('connection', false, saved.error.message, 'aep-companion openhands connect --url URL --key-file FILE')];
  if (saved.value === null) return [];
  return probeOpenHands(saved.value);
}
