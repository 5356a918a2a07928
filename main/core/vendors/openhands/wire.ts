/**
 * The OpenHands agent server's wire shapes, validated with zod (research/openhands/FACTS.md §3–§4):
 * `ServerInfo`, the conversation and event search pages, and one event in its transport form
 * (`exclude_none`, discriminated by `kind`; the union grows by release, so any `kind` passes and the
 * mapping decides). A frame that fails is logged with the reason and skipped by the caller.
 */
import { z } from 'zod';

/** Largest event frame taken (bytes); a larger one is logged and skipped. */
export const MAX_FRAME_BYTES = 1 << 20;

/** The agent-server major version this bridge speaks (1.x; `parent_id` on the wire from 1.37). */
export const KNOWN_MAJOR = 1;

export const serverInfoSchema = z.looseObject({
  version: z.string(),
  title: z.string().optional(),
  sdk_version: z.string().optional(),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

export const conversationSchema = z.looseObject({
  id: z.string().min(1),
  title: z.string().nullish(),
  execution_status: z.string().optional(),
  confirmation_policy: z.looseObject({ kind: z.string() }).optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
export type ConversationInfo = z.infer<typeof conversationSchema>;

export const conversationPageSchema = z.looseObject({
  items: z.array(conversationSchema),
  next_page_id: z.string().nullish(),
});

/** One event as the server sends it: the base fields typed, the rest kept for the mapping. */
export const eventSchema = z.looseObject({
  id: z.string().min(1),
  timestamp: z.string(),
  source: z.string(),
  kind: z.string().min(1),
  parent_id: z.string().optional(),
});
export type OhEvent = z.infer<typeof eventSchema> & Readonly<Record<string, unknown>>;

export const eventPageSchema = z.looseObject({
  items: z.array(z.unknown()),
  next_page_id: z.string().nullish(),
});

/** Parses one event frame; the reason in words when it is not one. */
export function parseEventFrame(
  text: string,
): { ok: true; event: OhEvent } | { ok: false; reason: string } {
  if (Buffer.byteLength(text) > MAX_FRAME_BYTES)
    return { ok: false, reason: `oversized frame (${Buffer.byteLength(text)} bytes; limit ${MAX_FRAME_BYTES})` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  return parseEvent(value);
}

/** Validates one decoded event. */
export function parseEvent(value: unknown): { ok: true; event: OhEvent } | { ok: false; reason: string } {
  const parsed = eventSchema.safeParse(value);
  if (!parsed.success)
    return {
      ok: false,
      reason: `not an event: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'frame'} ${i.message}`).join('; ')}`,
    };
  return { ok: true, event: parsed.data as OhEvent };
}

/** Whether this bridge knows the server's version (major 1); the refusal in words when not. */
export function versionRefusal(version: string): string | null {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (m && Number(m[1]) === KNOWN_MAJOR) return null;
  return `the OpenHands agent server reports version ${JSON.stringify(version)}; this bridge speaks ${KNOWN_MAJOR}.x (openhands-agent-server 1.37 or later): not attached`;
}
