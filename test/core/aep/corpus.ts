/** Loads the AEP conformance corpus copied at test/fixtures/aep (each file's $comment states its contract). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../fixtures/aep/', import.meta.url));

/** Reads one JSON fixture file. */
export const fixture = <T>(path: string): T => JSON.parse(readFileSync(root + path, 'utf8')) as T;

/** The golden events, one per non-empty line. */
export const goldenEvents = (): Record<string, unknown>[] =>
  readFileSync(root + 'golden/golden.jsonl', 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The golden lines as raw text. */
export const goldenLines = (): string[] =>
  readFileSync(root + 'golden/golden.jsonl', 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
