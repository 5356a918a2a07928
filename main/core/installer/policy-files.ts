/** Quiet reads of files we only inspect for warnings (managed policies, neighbouring configs). */
import { parse as parseToml } from 'smol-toml';
import { readConfigText } from './config-file';
import { parseJsonConfig } from './json-document';

/** Parsed JSON/JSONC of a file, or undefined when absent, unreadable or invalid. */
export async function readJsonQuietly(path: string): Promise<unknown> {
  const read = await readConfigText(path);
  if (!read.ok || read.value === null) return undefined;
  const parsed = parseJsonConfig(path, read.value);
  return parsed.ok ? parsed.value : undefined;
}

/** Parsed TOML of a file: `undefined` when absent, an `error` message when it does not parse. */
export async function readTomlQuietly(
  path: string,
): Promise<{ value?: Record<string, unknown>; error?: string } | undefined> {
  const read = await readConfigText(path);
  if (!read.ok) return { error: read.error.message };
  if (read.value === null) return undefined;
  try {
    return { value: parseToml(read.value) as Record<string, unknown> };
  } catch (cause) {
    return { error: (cause as Error).message };
  }
}

/** Whether a URL matches a vendor allow-list pattern (`*` is a wildcard). */
export function urlAllowed(url: string, patterns: readonly unknown[]): boolean {
  return patterns.some((p) => {
    if (typeof p !== 'string') return false;
    const regex = new RegExp(
      `^${p
        .split('*')
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return regex.test(url) || regex.test(url.split('?')[0]);
  });
}
