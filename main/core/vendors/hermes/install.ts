/**
 * Hermes Agent: shell hooks under `hooks:` in the profile's `config.yaml` (`$HERMES_HOME` or
 * `~/.hermes`; there is no project scope). Edited with the `yaml` Document API so the user's
 * comments and layout survive; `hooks.outbound`, `hooks.output_spill` and everything else are
 * left alone. Hermes spawns the command without a shell, so the opt-ins ride `env VAR=1 …`, and
 * it asks for consent once per exact (event, command) pair: a changed command asks again.
 */
import { join } from 'node:path';
import {
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  type Document,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { err, ok, type Result } from '../../../../common/result';
import { hookCommand, isOurCommand } from '../../installer/hook-target';
import type { InstallerErrorCode } from '../../installer/installer-error';
import { envVar, type InstallerEnv } from '../../installer/installer-env';
import { isObject, jsonEqual } from '../../installer/json-document';
import type { DesiredHooks, InstallTarget, OurEntry, VendorInstaller } from '../../installer/vendor-installer';
import {
  addPair,
  appendItem,
  appendTopLevel,
  isPlainBlock,
  removeItem,
  removePair,
  replaceItem,
} from '../../installer/yaml-text-edit';

const EVENTS = [
  'on_session_start',
  'pre_llm_call',
  'pre_tool_call',
  'post_tool_call',
  'pre_approval_request',
  'post_approval_response',
  'subagent_start',
  'subagent_stop',
  'on_session_end',
  'on_session_finalize',
  'on_session_reset',
] as const;

/** The Hermes profile directory, honouring HERMES_HOME. */
export function hermesHome(env: InstallerEnv): string {
  return envVar(env, 'HERMES_HOME') ?? join(env.home, '.hermes');
}

/** Seconds, on the gated pre_tool_call. */
const HELD_TIMEOUT_S = 90;

function entryFor(event: string, want: DesiredHooks, env: InstallerEnv): Record<string, unknown> {
  // With the permission opt-in the gated pre_tool_call gets room for a held answer. Today the
  // Hermes adapter holds no moment (its approvals are answered out of band), so the reply is immediate.
  const timeout = event === 'pre_tool_call' && want.permissions ? HELD_TIMEOUT_S : 10;
  return { command: hookCommand('hermes', env, want, 'argv'), timeout };
}

type Parsed = { doc: Document; root: YAMLMap | null };

function parseYaml(path: string, text: string): Result<Parsed, InstallerErrorCode> {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const where = first.linePos?.[0]
      ? ` at line ${first.linePos[0].line}, column ${first.linePos[0].col}`
      : '';
    return err(
      'corrupt-config',
      `${path} is not valid YAML (${first.code}${where}); fix or move it, then retry: it was not changed`,
    );
  }
  const contents = doc.contents;
  if (
    contents === null ||
    (isScalar(contents) && (contents.value === null || contents.value === ''))
  )
    return ok({ doc, root: null });
  if (!isMap(contents))
    return err('unexpected-shape', `${path}: the top level is not a mapping; it was not changed`);
  return ok({ doc, root: contents });
}

function hooksMap(path: string, root: YAMLMap | null): Result<YAMLMap | null, InstallerErrorCode> {
  if (!root) return ok(null);
  const hooks = root.get('hooks', true);
  if (hooks === undefined || (isScalar(hooks) && hooks.value === null)) return ok(null);
  if (!isMap(hooks))
    return err('unexpected-shape', `${path}: "hooks" is not a mapping; it was not changed`);
  return ok(hooks);
}

function ourIndexes(seq: YAMLSeq): number[] {
  return seq.items.flatMap((item, i) =>
    isMap(item) && isOurCommand(item.get('command')) ? [i] : [],
  );
}

/**
 * The same edit as the Document API path, done as line splices on the user's text so nothing of
 * theirs is re-printed; null when the file uses a shape the splicer does not handle.
 */
function spliceHermes(
  path: string,
  before: string,
  desired: ReadonlyMap<string, Record<string, unknown>>,
  removing: boolean,
): string | null {
  let text = before;
  const current = (): { root: YAMLMap | null; hooks: YAMLMap | null; hooksKey: boolean } | null => {
    const parsed = parseYaml(path, text);
    if (!parsed.ok) return null;
    const root = parsed.value.root;
    const node = root?.get('hooks', true);
    if (node !== undefined && !isMap(node)) return { root, hooks: null, hooksKey: true };
    return { root, hooks: (node as YAMLMap | undefined) ?? null, hooksKey: node !== undefined };
  };
  const start = current();
  if (!start) return null;
  const existing =
    start.hooks?.items.map((p) => String(isScalar(p.key) ? p.key.value : p.key)) ?? [];
  const hadHooks = (start.hooks?.items.length ?? 0) > 0;
  for (const event of [...desired.keys(), ...existing.filter((e) => !desired.has(e))]) {
    const state = current();
    if (!state) return null;
    const wanted = desired.get(event);
    const node = state.hooks?.get(event, true);
    const seq = isSeq(node) ? node : null;
    const ours = seq ? ourIndexes(seq) : [];
    let next: string | null = text;
    if (wanted) {
      if (ours.length > 0 && seq) {
        // Duplicates of ours are rare enough to leave to the Document API path.
        if (ours.length > 1) return null;
        if (!jsonEqual((seq.items[ours[0]] as YAMLMap).toJSON(), wanted))
          next = replaceItem(text, seq, ours[0], wanted);
      } else if (node !== undefined) {
        next = isPlainBlock(seq) ? appendItem(text, seq as YAMLSeq, wanted) : null;
      } else if (state.hooks) {
        next = isPlainBlock(state.hooks) ? addPair(text, state.hooks, event, [wanted]) : null;
      } else if (!state.hooksKey && (state.root === null || isPlainBlock(state.root))) {
        next = appendTopLevel(text, 'hooks', { [event]: [wanted] });
      } else {
        next = null;
      }
    } else if (seq && ours.length > 0 && state.hooks) {
      if (ours.length === seq.items.length) next = removePair(text, state.hooks, event);
      else
        for (const i of [...ours].reverse()) next = next === null ? null : removeItem(next, seq, i);
    }
    if (next === null) return null;
    text = next;
  }
  const end = current();
  if (
    removing &&
    hadHooks &&
    end?.root &&
    (end.hooks === null || end.hooks.items.length === 0) &&
    end.hooksKey
  ) {
    return removePair(text, end.root, 'hooks');
  }
  return text;
}

function editHermes(
  path: string,
  before: string | null,
  want: DesiredHooks | null,
  env: InstallerEnv,
): Result<string | null, InstallerErrorCode> {
  const printed = editHermesDocument(path, before, want, env);
  if (!printed.ok || printed.value === before || before === null) return printed;
  const desired = new Map(want ? EVENTS.map((e) => [e as string, entryFor(e, want, env)]) : []);
  const spliced = spliceHermes(path, before, desired, !want);
  if (spliced === null || printed.value === null) return printed;
  // Trust the splice only when it means exactly what the Document API produced.
  const check = parseYaml(path, spliced);
  const expected = parseYaml(path, printed.value);
  if (check.ok && expected.ok && jsonEqual(check.value.doc.toJSON(), expected.value.doc.toJSON()))
    return ok(spliced);
  return printed;
}

function editHermesDocument(
  path: string,
  before: string | null,
  want: DesiredHooks | null,
  env: InstallerEnv,
): Result<string | null, InstallerErrorCode> {
  if ((before === null || before.trim() === '') && !want) return ok(before);
  const parsed = parseYaml(path, before ?? '');
  if (!parsed.ok) return parsed;
  const { doc } = parsed.value;
  let root = parsed.value.root;
  const found = hooksMap(path, root);
  if (!found.ok) return found;
  let hooks = found.value;
  for (const [event, value] of hooks?.items.map(
    (p) => [String(isScalar(p.key) ? p.key.value : p.key), p.value] as const,
  ) ?? []) {
    if (value !== null && !isSeq(value) && !(isScalar(value) && value.value === null)) {
      return err('unexpected-shape', `${path}: "hooks.${event}" is not a list; it was not changed`);
    }
  }
  const hadHooks = hooks !== null && hooks.items.length > 0;
  let changed = false;

  const desired = new Map(want ? EVENTS.map((e) => [e as string, entryFor(e, want, env)]) : []);
  const existing = hooks?.items.map((p) => String(isScalar(p.key) ? p.key.value : p.key)) ?? [];
  for (const event of [...desired.keys(), ...existing.filter((e) => !desired.has(e))]) {
    const wanted = desired.get(event);
    const node = hooks?.get(event, true);
    const seq = isSeq(node) ? node : null;
    const ours = seq ? ourIndexes(seq) : [];
    if (wanted) {
      if (ours.length > 0 && seq) {
        const current = (seq.items[ours[0]] as YAMLMap).toJSON() as unknown;
        if (!jsonEqual(current, wanted)) {
          seq.items[ours[0]] = doc.createNode(wanted);
          changed = true;
        }
        for (const i of ours.slice(1).reverse()) {
          seq.delete(i);
          changed = true;
        }
        continue;
      }
      if (!root) {
        root = doc.createNode({}) as YAMLMap;
        doc.contents = root;
      }
      if (!hooks) {
        hooks = doc.createNode({}) as YAMLMap;
        root.set('hooks', hooks);
      }
      if (seq) seq.add(doc.createNode(wanted));
      else hooks.set(event, doc.createNode([wanted]));
      changed = true;
    } else if (seq && ours.length > 0) {
      for (const i of [...ours].reverse()) seq.delete(i);
      if (seq.items.length === 0) hooks?.delete(event);
      changed = true;
    }
  }
  if (!changed) return ok(before);
  if (root && hadHooks && hooks && hooks.items.length === 0 && !want) root.delete('hooks');
  // No folding of long commands, no padding inside the user's flow lists: as few layout changes as the API allows.
  return ok(doc.toString({ lineWidth: 0, flowCollectionPadding: false }));
}

/** The Hermes installer. */
export const hermes: VendorInstaller = {
  vendor: 'hermes',
  heldTimeoutS: HELD_TIMEOUT_S,
  scopes: ['user'],
  transports: ['command'],
  retrust: true,
  cliNames: ['hermes'],
  configPath(_target: InstallTarget, env: InstallerEnv): string {
    return join(hermesHome(env), 'config.yaml');
  },
  edit: editHermes,
  ourEntries(path, text) {
    if (text === null || text.trim() === '') return ok([]);
    const parsed = parseYaml(path, text);
    if (!parsed.ok) return parsed;
    const hooks = hooksMap(path, parsed.value.root);
    if (!hooks.ok) return hooks;
    const found: OurEntry[] = [];
    for (const pair of hooks.value?.items ?? []) {
      if (!isSeq(pair.value)) continue;
      const event = String(isScalar(pair.key) ? pair.key.value : pair.key);
      for (const i of ourIndexes(pair.value))
        found.push({
          event,
          entry: (pair.value.items[i] as YAMLMap).toJSON() as Record<string, unknown>,
        });
    }
    return ok(found);
  },
  isEmptyDocument(text) {
    const parsed = parseYaml('', text);
    return parsed.ok && (parsed.value.root === null || parsed.value.root.items.length === 0);
  },
  probe(found: OurEntry) {
    const command = found.entry.command;
    return typeof command === 'string'
      ? { kind: 'command', event: found.event, command, env: {}, runner: 'argv' }
      : null;
  },
  needsLauncher: () => true,
  async warnings(context) {
    if (!context.want) return [];
    const out: string[] = [];
    const parsed = context.before ? parseYaml(context.path, context.before) : undefined;
    const root = parsed?.ok ? parsed.value.root : null;
    const autoAccept = root
      ? isObject(root.toJSON()) &&
        (root.toJSON() as Record<string, unknown>).hooks_auto_accept === true
      : false;
    out.push(
      autoAccept
        ? 'hooks_auto_accept is on in this profile: Hermes runs these hooks without asking.'
        : 'Hermes asks once for each new or changed hook command: approve the AEP Companion hooks at the prompt the next time you start Hermes (or start it once with --accept-hooks). Non-interactive runs (gateway, cron) skip hooks that were never approved.',
    );
    out.push(
      'Hermes reads hooks at start: restart running Hermes sessions or the gateway to pick up the change. HERMES_SAFE_MODE=1 turns shell hooks off.',
    );
    return out;
  },
};
