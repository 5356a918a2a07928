/** The checks every "one session, many sources" real-CLI test makes on a launched session with hooks installed. */
import { expect } from 'vitest';
import type { LaunchRig } from './launch-rig';

type Json = Record<string, unknown>;

/** The senders of the operator's commands: the tests' consumer and the console (renderer/src/model/command-sender.ts). */
const OPERATORS = new Set(['operator', 'aep-companion-console']);

/**
 * The user's hooks really saw the session (the registry holds their sighting beside the launch
 * host's ownership), and yet it is one session row, one roster entry, one `session.started`, one
 * emitter, and one tool event pair per call id, with no "ambiguous" refusal.
 */
export async function expectOneSession(rig: LaunchRig, session: string, options: { toolCalls?: number } = {}): Promise<void> {
  const types = rig.c.types(session).join(',');
  const sources = rig.d.daemon.context.db.prepare('SELECT kind, owner FROM session_registry WHERE session = ? ORDER BY kind').all(session);
  // The transcript a hook points to is a source too (it enriches the owner's stream).
  expect(sources.filter((r) => (r as { kind: string }).kind !== 'transcript'), 'the installed hooks fired for the launched session').toEqual([
    { kind: 'hooks', owner: 0 },
    { kind: 'launched', owner: 1 },
  ]);
  expect(sources.filter((r) => (r as { kind: string }).kind === 'transcript').every((r) => (r as { owner: number }).owner === 0)).toBe(true);
  // The agent's replies come over its protocol: a transcript's copy never goes out beside them.
  expect(rig.c.types(session).filter((t) => t.endsWith('.message.replied'))).toEqual([]);
  const sessions = await rig.d.api<Json[]>('GET', '/api/sessions');
  expect(sessions.json.filter((s) => s.session === session), JSON.stringify(sessions.json)).toHaveLength(1);
  const roster = await rig.c.roster();
  const entries = (roster.entries as Json[]).filter((e) => e.session === session);
  expect(entries, JSON.stringify(entries)).toHaveLength(1);
  const events = rig.c.of(session);
  expect(events.filter((e) => e.type === 'session.started'), types).toHaveLength(1);
  // Every event but the operator's own commands comes from the one owning emitter.
  const emitted = events.filter((e) => !OPERATORS.has(String(e.agent)));
  expect(new Set(emitted.map((e) => `${String(e.agent)} ${String(e.source)}`)), types).toEqual(new Set([`${String(emitted[0]?.agent)} ${String(emitted[0]?.source)}`]));
  expect(String(emitted[0]?.source)).toContain('/launched/');
  const calls = new Map<string, string[]>();
  for (const e of events) {
    const callId = ((e.data as Json | undefined)?.tool as Json | undefined)?.call_id;
    if (typeof callId === 'string' && String(e.type).startsWith('tool.')) calls.set(callId, [...(calls.get(callId) ?? []), String(e.type)]);
  }
  // The scripted conversation makes this many tool calls: a hook's copy under another id would be one more.
  expect([...calls.keys()], `${types}\n${JSON.stringify(events.filter((e) => String(e.type).startsWith("tool.") || e.type === "x.acp.tool_call.update"))}`).toHaveLength(options.toolCalls ?? 1);
  for (const [callId, seen] of calls) expect(seen.length, `${callId}: ${seen.join(',')}`).toBe(2);
  expect(rig.c.frames.filter((f) => f.type === 'error' && /ambiguous/.test(JSON.stringify(f))), JSON.stringify(rig.c.frames)).toHaveLength(0);
}
