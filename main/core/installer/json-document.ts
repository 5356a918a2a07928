/**
 * Parsing and editing JSON / JSONC config files with jsonc-parser, so edits touch only the
 * paths we change: comments, key order and the user's indentation survive.
 */
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parse,
  parseTree,
  printParseErrorCode,
  type FormattingOptions,
  type JSONPath,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import { err, ok, type Result } from '../../../common/result';
import type { InstallerErrorCode } from './installer-error';

/** Parses a config file; a syntax error becomes a `corrupt-config` error naming the line and column. */
export function parseJsonConfig(path: string, text: string): Result<unknown, InstallerErrorCode> {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  if (errors.length > 0) {
    const first = errors[0];
    const { line, column } = lineColumn(text, first.offset);
    return err(
      'corrupt-config',
      `${path} is not valid JSON (${printParseErrorCode(first.error)} at line ${line}, column ${column}); fix or move it, then retry: it was not changed`,
    );
  }
  return ok(value);
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/** Detects the file's own indentation and line ending so inserted entries look like their neighbours. */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /\n([ \t]+)\S/.exec(text);
  if (indented && indented[1].startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  const size = indented ? indented[1].length : 2;
  return { insertSpaces: true, tabSize: Math.max(1, Math.min(size, 8)), eol };
}

/** Sets (or, with `undefined`, removes) one path; `insert` inserts into an array at the index. */
export function editJson(text: string, path: JSONPath, value: unknown, insert = false): string {
  const edits = modify(text, path, value, {
    formattingOptions: formattingOf(text),
    isArrayInsertion: insert,
  });
  return applyEdits(text, edits);
}

/** The whitespace before `offset` on its line, when nothing else precedes it there (else null: an inline value). */
function ownLineIndent(text: string, offset: number): string | null {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lead = text.slice(lineStart, offset);
  return /^[ \t]*$/.test(lead) ? lead : null;
}

function rendered(value: unknown, text: string, indent: string | null): string {
  if (indent === null) return JSON.stringify(value);
  const f = formattingOf(text);
  const unit = f.insertSpaces ? ' '.repeat(f.tabSize ?? 2) : '\t';
  return JSON.stringify(value, null, unit)
    .split('\n')
    .join(f.eol + indent);
}

function lastChild(text: string, path: JSONPath): Node | undefined {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const node = tree ? findNodeAtLocation(tree, path) : undefined;
  return node?.children?.[node.children.length - 1];
}

/**
 * Appends a value to a non-empty array right after its last element, in that element's own
 * style (its own line and indentation, or inline), so no neighbouring bytes are reformatted;
 * jsonc-parser's insertion reformats the whole line of the previous element.
 */
export function appendToArray(text: string, path: JSONPath, value: unknown): string {
  const last = lastChild(text, path);
  if (!last) return editJson(text, [...path, 0], value, true);
  const end = last.offset + last.length;
  const indent = ownLineIndent(text, last.offset);
  const sep = indent === null ? ', ' : `,${formattingOf(text).eol}${indent}`;
  return text.slice(0, end) + sep + rendered(value, text, indent) + text.slice(end);
}

/** Adds a property after the last one of a non-empty object, in the style of that property (see appendToArray). */
export function addProperty(text: string, path: JSONPath, key: string, value: unknown): string {
  const last = lastChild(text, path);
  if (!last) return editJson(text, [...path, key], value);
  const end = last.offset + last.length;
  const indent = ownLineIndent(text, last.offset);
  const sep = indent === null ? ', ' : `,${formattingOf(text).eol}${indent}`;
  return `${text.slice(0, end)}${sep}${JSON.stringify(key)}: ${rendered(value, text, indent)}${text.slice(end)}`;
}

/**
 * Removes one array element or object property together with its separator, leaving every
 * other byte alone: exactly undoes appendToArray / addProperty.
 */
export function removeAt(text: string, path: JSONPath): string {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const node = tree ? findNodeAtLocation(tree, path) : undefined;
  if (!node) return text;
  const item = node.parent?.type === 'property' ? node.parent : node;
  const siblings = item.parent?.children ?? [];
  const i = siblings.indexOf(item);
  let start: number;
  let end: number;
  if (i > 0) {
    start = siblings[i - 1].offset + siblings[i - 1].length;
    end = item.offset + item.length;
  } else if (siblings.length > 1) {
    start = item.offset;
    end = siblings[1].offset;
  } else if (item.parent) {
    start = item.parent.offset + 1;
    end = item.parent.offset + item.parent.length - 1;
  } else {
    return text;
  }
  return text.slice(0, start) + text.slice(end);
}

/** A fresh JSON document in the common style (two spaces, trailing newline). */
export function freshJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Structural equality of two JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
