/**
 * Argument validation for the bootstrap bridge (common/bridge.ts). The renderer is treated as
 * untrusted input: each channel's arguments are checked here before a handler runs, and a bad
 * call is refused with a specific message instead of reaching Electron APIs.
 */
import type { NativeNotification } from '../../common/bridge';
import { isExternalWebUrl, parseRoute } from './navigation-policy';

/** A validated value or the reason it was refused. */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** Longest notification title and body the bridge forwards (OS centres truncate anyway). */
export const MAX_TITLE = 200;
export const MAX_BODY = 1_000;

/** Validates the argument of 'notify:show'. */
export function checkNotification(value: unknown): Checked<NativeNotification> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'notify:show expects { title, body, route? }' };
  const v = value as Record<string, unknown>;
  if (typeof v.title !== 'string' || v.title.trim() === '') return { ok: false, error: 'notify:show: title must be a non-empty string' };
  if (typeof v.body !== 'string') return { ok: false, error: 'notify:show: body must be a string' };
  let route: string | undefined;
  if (v.route !== undefined) {
    const parsed = parseRoute(v.route);
    if (parsed === null) return { ok: false, error: "notify:show: route must be a console route such as '#/inbox'" };
    route = parsed;
  }
  return {
    ok: true,
    value: { title: v.title.slice(0, MAX_TITLE), body: v.body.slice(0, MAX_BODY), ...(route !== undefined ? { route } : {}) },
  };
}

/** Validates the argument of 'shell:open-external': http(s) only. */
export function checkExternalUrl(value: unknown): Checked<string> {
  if (typeof value !== 'string' || value.length > 4_096) return { ok: false, error: 'shell:open-external expects a URL string' };
  if (!isExternalWebUrl(value)) return { ok: false, error: 'shell:open-external opens http(s) URLs only' };
  return { ok: true, value: new URL(value).toString() };
}

/** Validates that a channel that takes no argument got none. */
export function checkNoArguments(channel: string, args: readonly unknown[]): Checked<void> {
  return args.length === 0 ? { ok: true, value: undefined } : { ok: false, error: `${channel} takes no arguments` };
}
