/**
 * What a timeline row shows when opened, as typed pieces: terminal text for shell commands, a
 * diff for edits and writes, a file excerpt with its path for reads, plain text for prompts and
 * answers, and the remaining data as collapsible JSON. Pure: the views render the pieces. Tool
 * arguments and results are producer-controlled input, read defensively for every vendor's names.
 */
import { diffLines } from 'diff';
import type { AepEvent } from '../../../common/aep/envelope';
import { toolName } from './event-types';
import { toolCommand } from './shell-command';
import type { TimelineRow } from './timeline';

/** One thing to show. */
export type ContentPiece =
  | { readonly kind: 'terminal'; readonly label: string; readonly text: string; readonly tone?: 'error' }
  | { readonly kind: 'diff'; readonly path: string; readonly before: string; readonly after: string }
  | { readonly kind: 'file'; readonly path: string; readonly text: string; readonly startLine: number }
  | { readonly kind: 'text'; readonly label: string; readonly text: string }
  | { readonly kind: 'json'; readonly label: string; readonly value: unknown };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (o: Obj | null, ...keys: string[]): string | undefined => {
  if (!o) return undefined;
  for (const k of keys) if (typeof o[k] === 'string') return o[k] as string;
  return undefined;
};

/** A value that may be an object or its JSON text. */
function asObj(v: unknown): Obj | null {
  if (isObj(v)) return v;
  if (typeof v === 'string' && v.trimStart().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(v);
      return isObj(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
  return null;
}

const SHELL = /^(bash|shell|run_shell_command|exec_command|local_shell|terminal|run_in_terminal|command)$/i;
const EDIT = /^(edit|replace|str_replace|str_replace_based_edit_tool|apply_patch|edit_file|replace_string_in_file)$/i;
const MULTI_EDIT = /^multi_?edit$/i;
const WRITE = /^(write|write_file|create_file|create)$/i;
const READ = /^(read|read_file|view|read_many_files|open_file)$/i;

function argsOf(e: AepEvent | undefined): Obj | null {
  return e ? asObj(e.data?.args ?? e.data?.args_redacted) : null;
}

function resultOf(e: AepEvent | undefined): unknown {
  return e ? (e.data?.result ?? e.data?.result_redacted) : undefined;
}

function commandText(args: Obj | null): string | undefined {
  if (!args) return undefined;
  const c = args.command ?? args.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) return (c as string[]).join(' ');
  return undefined;
}

function shellPieces(command: string | undefined, result: unknown): ContentPiece[] {
  const out: ContentPiece[] = [];
  if (command !== undefined) out.push({ kind: 'terminal', label: 'Command', text: `$ ${command}` });
  if (typeof result === 'string') {
    const parsed = asObj(result);
    if (!parsed) {
      out.push({ kind: 'terminal', label: 'Output', text: result });
      return out;
    }
    result = parsed;
  }
  const r = isObj(result) ? result : null;
  const stdout = str(r, 'stdout', 'output', 'aggregated_output', 'formatted_output');
  const stderr = str(r, 'stderr');
  if (stdout !== undefined) out.push({ kind: 'terminal', label: 'Output', text: stdout });
  if (stderr) out.push({ kind: 'terminal', label: 'Errors', text: stderr, tone: 'error' });
  if (r && stdout === undefined && stderr === undefined) out.push({ kind: 'json', label: 'Result', value: r });
  return out;
}

function editPieces(name: string, args: Obj | null, result: unknown): ContentPiece[] {
  const path = str(args, 'file_path', 'path', 'filePath', 'absolute_path') ?? str(asObj(result), 'filePath') ?? '(no path)';
  if (MULTI_EDIT.test(name) && args && Array.isArray(args.edits)) {
    return (args.edits as unknown[]).flatMap((x) => (isObj(x) ? [{ kind: 'diff' as const, path, before: str(x, 'old_string', 'oldString') ?? '', after: str(x, 'new_string', 'newString') ?? '' }] : []));
  }
  if (WRITE.test(name)) {
    const r = asObj(result);
    return [{ kind: 'diff', path, before: str(r, 'originalFile') ?? '', after: str(args, 'content', 'file_text') ?? str(r, 'content') ?? '' }];
  }
  const before = str(args, 'old_string', 'oldString', 'old_str');
  const after = str(args, 'new_string', 'newString', 'new_str');
  if (before !== undefined || after !== undefined) return [{ kind: 'diff', path, before: before ?? '', after: after ?? '' }];
  const patch = str(args, 'patch', 'input');
  return patch !== undefined ? [{ kind: 'terminal', label: `Patch · ${path}`, text: patch }] : [];
}

function readPieces(args: Obj | null, result: unknown): ContentPiece[] {
  const r = asObj(result);
  const file = r && isObj(r.file) ? r.file : r;
  const path = str(file, 'filePath', 'path') ?? str(args, 'file_path', 'absolute_path', 'path') ?? '(no path)';
  const text = str(file, 'content') ?? (typeof result === 'string' && !r ? result : undefined);
  if (text === undefined) return r ? [{ kind: 'json', label: 'Result', value: r }] : [];
  const start = file && typeof file.startLine === 'number' ? file.startLine : args && typeof args.offset === 'number' ? args.offset : 1;
  return [{ kind: 'file', path, text, startLine: Math.max(1, start) }];
}

/** The pieces of a tool row (request + result). */
export function toolPieces(row: TimelineRow): ContentPiece[] {
  const requested = row.events.find((e) => e.type === 'tool.requested');
  const ended = row.events.find((e) => e.type === 'tool.completed' || e.type === 'tool.failed' || e.type === 'tool.denied');
  const name = toolName(requested ?? row.events[0]);
  const args = argsOf(requested);
  const result = resultOf(ended);
  let pieces: ContentPiece[] = [];
  const command = toolCommand(requested) ?? commandText(args);
  if (SHELL.test(name) || (command !== undefined && !EDIT.test(name))) pieces = shellPieces(command, result);
  else if (EDIT.test(name) || MULTI_EDIT.test(name) || WRITE.test(name)) pieces = editPieces(name, args, result);
  else if (READ.test(name)) pieces = readPieces(args, result);
  else {
    if (args) pieces.push({ kind: 'json', label: 'Arguments', value: args });
    if (result !== undefined) pieces.push(typeof result === 'string' ? { kind: 'terminal', label: 'Result', text: result } : { kind: 'json', label: 'Result', value: result });
  }
  const error = ended?.type === 'tool.failed' ? (ended.data?.error as { message?: unknown } | undefined) : undefined;
  if (typeof error?.message === 'string') pieces.push({ kind: 'terminal', label: 'Error', text: error.message, tone: 'error' });
  return pieces;
}

/** The pieces of any row: prompts and answers as text, tools by kind, the rest as JSON. */
export function rowPieces(row: TimelineRow): ContentPiece[] {
  const first = row.events[0];
  if (row.kind === 'tool') return toolPieces(row);
  if (row.kind === 'prompt') {
    const prompt = first.data?.prompt;
    return typeof prompt === 'string' ? [{ kind: 'text', label: 'Prompt', text: prompt }] : [];
  }
  if (row.kind === 'reply') {
    const text = first.data?.text;
    return typeof text === 'string' ? [{ kind: 'text', label: 'Reply', text }] : [];
  }
  if (row.kind === 'instruction') {
    const text = first.data?.text;
    return typeof text === 'string' ? [{ kind: 'text', label: 'Instruction', text }] : [];
  }
  if (row.kind === 'attention') {
    const prompt = first.data?.prompt;
    return typeof prompt === 'string' ? [{ kind: 'text', label: 'Request', text: prompt }] : [];
  }
  const pieces: ContentPiece[] = [];
  for (const e of row.events) {
    const d = e.data ?? {};
    for (const key of ['text', 'summary', 'message', 'content']) {
      if (typeof d[key] === 'string') pieces.push({ kind: 'text', label: key === 'summary' ? 'Answer' : key[0].toUpperCase() + key.slice(1), text: d[key] as string });
    }
  }
  return pieces;
}

/** Lines of a text, and whether it is longer than a limit of lines or characters. */
export function truncateText(text: string, maxLines = 40, maxChars = 6_000): { shown: string; truncated: boolean; lines: number } {
  const lines = text.split(/\r\n|\r|\n/);
  let shown = lines.slice(0, maxLines).join('\n');
  let truncated = lines.length > maxLines;
  if (shown.length > maxChars) {
    shown = shown.slice(0, maxChars);
    truncated = true;
  }
  return { shown, truncated, lines: lines.length };
}

/** A line diff (jsdiff) as text, each line signed `+`, `-` or ` `. */
export function diffText(before: string, after: string): string {
  const out: string[] = [];
  for (const part of diffLines(before, after)) {
    const sign = part.added ? '+' : part.removed ? '-' : ' ';
    const lines = part.value.replace(/\n$/, '').split('\n');
    for (const line of lines) out.push(`${sign}${line}`);
  }
  return out.join('\n');
}
