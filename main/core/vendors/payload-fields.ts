/** Typed readers for untrusted hook payload fields: a field of the wrong type reads as absent. */

/** A JSON object (not an array, not null). */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Narrowing check for a plain JSON object. */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The string at `key`, or undefined. */
export const str = (source: JsonObject | undefined, key: string): string | undefined => {
  const value = source?.[key];
  return typeof value === 'string' ? value : undefined;
};

/** The non-empty string at `key`, or undefined. */
export const nonEmpty = (source: JsonObject | undefined, key: string): string | undefined => {
  const value = str(source, key);
  return value === undefined || value === '' ? undefined : value;
};

/** The finite number at `key`, or undefined. */
export const num = (source: JsonObject | undefined, key: string): number | undefined => {
  const value = source?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
};

/** The non-negative integer at `key`, or undefined (schema fields typed `integer`). */
export const int = (source: JsonObject | undefined, key: string): number | undefined => {
  const value = num(source, key);
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : undefined;
};

/** The boolean at `key`, or undefined. */
export const bool = (source: JsonObject | undefined, key: string): boolean | undefined => {
  const value = source?.[key];
  return typeof value === 'boolean' ? value : undefined;
};

/** The object at `key`, or undefined. */
export const obj = (source: JsonObject | undefined, key: string): JsonObject | undefined => {
  const value = source?.[key];
  return isObject(value) ? value : undefined;
};

/** Copies only the defined entries, so absent attributes are omitted rather than undefined. */
export const compact = (entries: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  // Own keys in the order Object.entries gives them, without a [key, value] pair per entry.
  for (const key in entries) {
    if (!Object.hasOwn(entries, key)) continue;
    const value = entries[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
};
