/**
 * Line-level edits of block-style YAML, guided by the ranges of a parsed `yaml` Document: new
 * items and keys are spliced in as whole lines at the right indentation, removals take out
 * exactly those lines. Every other byte of the user's file stays as it was (the Document API's
 * own printer would re-space comments and re-flow values). Callers verify the result and fall
 * back to the Document API when a shape is not plain block style.
 */
import { isMap, isSeq, stringify, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The start of the line after the one `offset` ends on (ranges of block nodes already end after a newline). */
function lineAfter(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const nl = text.indexOf('\n', offset);
  return nl === -1 ? text.length : nl + 1;
}

function indented(block: string, column: number): string {
  const pad = ' '.repeat(column);
  return block
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

/** Renders a value as block YAML without folding long lines. */
function render(value: unknown): string {
  return stringify(value, { lineWidth: 0, flowCollectionPadding: false });
}

function ensureNewline(text: string, at: number): { text: string; at: number } {
  if (at === text.length && text.length > 0 && !text.endsWith('\n'))
    return { text: `${text}\n`, at: at + 1 };
  return { text, at };
}

function range(node: Node | null | undefined): [number, number, number] | null {
  return node?.range ?? null;
}

/** True for a block (not flow) sequence or map with at least one item. */
export function isPlainBlock(node: unknown): node is YAMLMap | YAMLSeq {
  return (
    (isSeq(node) || isMap(node)) && !node.flow && node.items.length > 0 && node.range !== undefined
  );
}

/** The column of a sequence item's dash. */
function dashColumn(text: string, item: Node): number | null {
  const r = range(item);
  if (!r) return null;
  const start = lineStart(text, r[0]);
  const dash = text.lastIndexOf('-', r[0]);
  return dash >= start ? dash - start : null;
}

/** Appends one item after the last item of a block sequence. */
export function appendItem(text: string, seq: YAMLSeq, value: unknown): string | null {
  const last = seq.items[seq.items.length - 1] as Node;
  const r = range(last);
  const column = dashColumn(text, last);
  if (!r || column === null) return null;
  const spot = ensureNewline(text, lineAfter(text, r[1]));
  return spot.text.slice(0, spot.at) + indented(render([value]), column) + spot.text.slice(spot.at);
}

/** Replaces the lines of one sequence item. */
export function replaceItem(
  text: string,
  seq: YAMLSeq,
  index: number,
  value: unknown,
): string | null {
  const item = seq.items[index] as Node;
  const r = range(item);
  const column = dashColumn(text, item);
  if (!r || column === null) return null;
  const start = lineStart(text, r[0]);
  const end = lineAfter(text, r[1]);
  const rendered = indented(render([value]), column);
  return (
    text.slice(0, start) +
    (end === text.length && !text.endsWith('\n') ? rendered.replace(/\n$/, '') : rendered) +
    text.slice(end)
  );
}

/** Removes the lines of one sequence item. */
export function removeItem(text: string, seq: YAMLSeq, index: number): string | null {
  const item = seq.items[index] as Node;
  const r = range(item);
  if (!r || dashColumn(text, item) === null) return null;
  return text.slice(0, lineStart(text, r[0])) + text.slice(lineAfter(text, r[1]));
}

/** Adds `key: value` after the last pair of a block mapping. */
export function addPair(text: string, map: YAMLMap, key: string, value: unknown): string | null {
  const first = map.items[0] as Pair<Node, Node | null>;
  const last = map.items[map.items.length - 1] as Pair<Node, Node | null>;
  const keyRange = range(first.key);
  const lastEnd = range(last.value) ?? range(last.key);
  if (!keyRange || !lastEnd) return null;
  const column = keyRange[0] - lineStart(text, keyRange[0]);
  const spot = ensureNewline(text, lineAfter(text, lastEnd[1]));
  return (
    spot.text.slice(0, spot.at) +
    indented(render({ [key]: value }), column) +
    spot.text.slice(spot.at)
  );
}

/** Removes the lines of one `key: value` pair of a block mapping. */
export function removePair(text: string, map: YAMLMap, key: string): string | null {
  const pair = map.items.find(
    (p) => String((p.key as { value?: unknown })?.value ?? p.key) === key,
  ) as Pair<Node, Node | null> | undefined;
  const keyRange = range(pair?.key);
  const end = range(pair?.value) ?? keyRange;
  if (!keyRange || !end) return null;
  return text.slice(0, lineStart(text, keyRange[0])) + text.slice(lineAfter(text, end[1]));
}

/** Appends a top-level `key: value` block at the end of the document. */
export function appendTopLevel(text: string, key: string, value: unknown): string {
  const spot = ensureNewline(text, text.length);
  return spot.text + render({ [key]: value });
}
