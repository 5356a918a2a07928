/** Expected failures are values: a typed error code and a human-readable message. */
export type Result<T, C extends string = string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: { readonly code: C; readonly message: string } };

/** Builds a success value. */
export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

/** Builds a failure value. */
export const err = <C extends string>(code: C, message: string): { ok: false; error: { code: C; message: string } } => ({
  ok: false,
  error: { code, message },
});

/** Exhaustiveness guard for switch statements over unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
