/** The plan's diffs: standard unified diffs a user can read or feed to `patch`. */
import { createTwoFilesPatch } from 'diff';

/** Unified diff of one file's before → after (`null` = absent). */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  return createTwoFilesPatch(
    before === null ? '/dev/null' : path,
    after === null ? '/dev/null' : path,
    before ?? '',
    after ?? '',
    undefined,
    undefined,
    { context: 3 },
  );
}
