/**
 * Merging our hooks into the grouped hook format shared by Claude Code, Codex hooks.json and
 * Qwen Code: `{"hooks": {"<Event>": [{"matcher"?, "hooks": [handler, …]}, …]}}`.
 *
 * Our handlers are updated in place where they already are and appended as a new group at the
 * end of the event's list otherwise: Codex keys hook trust by position, so inserting before a
 * user's group would silently un-trust it. Nothing that is not ours is touched.
 */
import { err, ok, type Result } from '../../../common/result';
import type { InstallerEnv } from './installer-env';
import type { InstallerErrorCode } from './installer-error';
import type { DesiredHooks, HookProbe, OurEntry, VendorInstaller } from './vendor-installer';
import {
  addProperty,
  appendToArray,
  editJson,
  freshJson,
  removeAt,
  isObject,
  jsonEqual,
  parseJsonConfig,
} from './json-document';

/** The hooks we want in one file: event → our single handler there, in the vendor's event order. */
export interface GroupedHooksSpec {
  readonly desired: ReadonlyArray<
    readonly [event: string, handler: Readonly<Record<string, unknown>>]
  >;
  /** Recognises our handlers (by marker), including older variants of them. */
  readonly isOurs: (handler: unknown) => boolean;
}

type Pos = readonly [group: number, handler: number];

function ourPositions(list: unknown, isOurs: (h: unknown) => boolean): Pos[] {
  const found: Pos[] = [];
  if (!Array.isArray(list)) return found;
  list.forEach((group, g) => {
    if (!isObject(group) || !Array.isArray(group.hooks)) return;
    group.hooks.forEach((handler, h) => {
      if (isOurs(handler)) found.push([g, h]);
    });
  });
  return found;
}

/** Checks the shape we are about to edit, so a surprising file is refused rather than mangled. */
function checkShape(path: string, root: unknown): Result<void, InstallerErrorCode> {
  if (root === undefined) return ok(undefined);
  if (!isObject(root))
    return err(
      'unexpected-shape',
      `${path}: the top level is not a JSON object; it was not changed`,
    );
  if (root.hooks === undefined) return ok(undefined);
  if (!isObject(root.hooks))
    return err('unexpected-shape', `${path}: "hooks" is not an object; it was not changed`);
  for (const [event, list] of Object.entries(root.hooks)) {
    if (!Array.isArray(list))
      return err('unexpected-shape', `${path}: "hooks.${event}" is not a list; it was not changed`);
  }
  return ok(undefined);
}

/** Lists the events that hold one of our handlers, with the handlers themselves. */
export function findOurGroupedHandlers(
  root: unknown,
  isOurs: (h: unknown) => boolean,
): Array<[string, Record<string, unknown>]> {
  if (!isObject(root) || !isObject(root.hooks)) return [];
  const out: Array<[string, Record<string, unknown>]> = [];
  for (const [event, list] of Object.entries(root.hooks)) {
    for (const [g, h] of ourPositions(list, isOurs)) {
      out.push([event, (list as Array<{ hooks: Array<Record<string, unknown>> }>)[g].hooks[h]]);
    }
  }
  return out;
}

/**
 * Returns the file text with exactly our handlers (`desired`), or `null` when the file did not
 * exist and still has nothing to hold. An empty `desired` removes ours (uninstall).
 */
export function editGroupedHooks(
  path: string,
  before: string | null,
  spec: GroupedHooksSpec,
): Result<string | null, InstallerErrorCode> {
  const blank = before === null || before.trim() === '';
  if (blank) {
    if (spec.desired.length === 0) return ok(before);
    const hooks: Record<string, unknown> = {};
    for (const [event, handler] of spec.desired) hooks[event] = [{ hooks: [handler] }];
    return ok(freshJson({ hooks }));
  }
  const parsed = parseJsonConfig(path, before);
  if (!parsed.ok) return parsed;
  const shape = checkShape(path, parsed.value);
  if (!shape.ok) return shape;

  let text = before;
  const read = (): Record<string, unknown> =>
    (parseJsonConfig(path, text) as { value: Record<string, unknown> }).value;
  const hooksOf = (): Record<string, unknown> | undefined =>
    read().hooks as Record<string, unknown> | undefined;
  const hadHooks = isObject(hooksOf()) && Object.keys(hooksOf() ?? {}).length > 0;

  const removeOurs = (event: string, [g, h]: Pos): void => {
    text = removeAt(text, ['hooks', event, g, 'hooks', h]);
    const list = hooksOf()?.[event] as unknown[];
    const group = list[g] as Record<string, unknown>;
    const onlyOurKeys = Object.keys(group).every((k) => k === 'hooks' || k === 'matcher');
    if ((group.hooks as unknown[]).length === 0 && onlyOurKeys)
      text = removeAt(text, ['hooks', event, g]);
    if ((hooksOf()?.[event] as unknown[]).length === 0) text = removeAt(text, ['hooks', event]);
  };

  const desiredEvents = new Map(spec.desired);
  const existing = Object.keys(hooksOf() ?? {});
  const events = [
    ...spec.desired.map(([e]) => e),
    ...existing.filter((e) => !desiredEvents.has(e)),
  ];
  for (const event of events) {
    const handler = desiredEvents.get(event);
    const ours = ourPositions(hooksOf()?.[event], spec.isOurs);
    if (handler) {
      if (ours.length > 0) {
        const [g, h] = ours[0];
        const list = hooksOf()?.[event] as Array<{ hooks: unknown[] }>;
        if (!jsonEqual(list[g].hooks[h], handler))
          text = editJson(text, ['hooks', event, g, 'hooks', h], handler);
        for (const pos of ours.slice(1).reverse()) removeOurs(event, pos);
      } else {
        const hooks = hooksOf();
        const group = { hooks: [handler] };
        if (hooks === undefined) text = addProperty(text, [], 'hooks', { [event]: [group] });
        else if (hooks[event] === undefined) text = addProperty(text, ['hooks'], event, [group]);
        else text = appendToArray(text, ['hooks', event], group);
      }
    } else {
      for (const pos of [...ours].reverse()) removeOurs(event, pos);
    }
  }
  // Drop a "hooks" object only when our removal is what emptied it.
  const after = hooksOf();
  if (hadHooks && isObject(after) && Object.keys(after).length === 0 && spec.desired.length === 0)
    text = removeAt(text, ['hooks']);
  return ok(text);
}

/** Our entries in a grouped-format config text (none for an absent or blank file). */
export function ourGroupedEntries(
  path: string,
  text: string | null,
  isOurs: (h: unknown) => boolean,
): Result<Array<{ event: string; entry: Record<string, unknown> }>, InstallerErrorCode> {
  if (text === null || text.trim() === '') return ok([]);
  const parsed = parseJsonConfig(path, text);
  if (!parsed.ok) return parsed;
  return ok(
    findOurGroupedHandlers(parsed.value, isOurs).map(([event, entry]) => ({ event, entry })),
  );
}

/** True when a JSON text is an empty object (or nothing). */
export function isEmptyJsonDocument(text: string): boolean {
  if (text.trim() === '') return true;
  const parsed = parseJsonConfig('', text);
  return (
    parsed.ok &&
    (parsed.value === undefined ||
      (isObject(parsed.value) && Object.keys(parsed.value).length === 0))
  );
}

/**
 * The file-format half of a grouped-format installer (Claude Code, Codex hooks.json, Qwen Code):
 * editing, reading back our entries, and probing them. `handlerFor` builds our handler for one
 * event; `commandEnv` says whether the vendor's command handlers carry an `env` object.
 */
export function groupedHooksFormat(spec: {
  readonly events: readonly string[];
  readonly handlerFor: (
    event: string,
    want: DesiredHooks,
    env: InstallerEnv,
  ) => Readonly<Record<string, unknown>>;
  readonly isOurs: (handler: unknown) => boolean;
  readonly commandEnv: boolean;
}): Pick<VendorInstaller, 'edit' | 'ourEntries' | 'isEmptyDocument' | 'probe'> {
  return {
    edit(path, before, want, env) {
      const desired = want
        ? spec.events.map((event) => [event, spec.handlerFor(event, want, env)] as const)
        : [];
      return editGroupedHooks(path, before, { desired, isOurs: spec.isOurs });
    },
    ourEntries: (path, text) => ourGroupedEntries(path, text, spec.isOurs),
    isEmptyDocument: isEmptyJsonDocument,
    probe(found: OurEntry): HookProbe | null {
      const e = found.entry;
      if (e.type === 'http' && typeof e.url === 'string') {
        const headers = (isObject(e.headers) ? e.headers : {}) as Record<string, string>;
        return { kind: 'http', event: found.event, url: e.url, headers };
      }
      if (typeof e.command !== 'string') return null;
      const env = (spec.commandEnv && isObject(e.env) ? e.env : {}) as Record<string, string>;
      return { kind: 'command', event: found.event, command: e.command, env, runner: 'shell' };
    },
  };
}
