/**
 * The hook shim's per-vendor tables, built in: scripts/build-cli.mjs computes them from the vendor
 * adapters (main/core/installer/shim-tables.ts, as for the installed launcher) and substitutes
 * them for `AEP_HOOK_TABLES` with esbuild's `define`, so the shim carries no copy of a vendor fact
 * and loads nothing of the core at run time. Run from the sources, it finds them on `globalThis`
 * when a runner put them there, and otherwise has none (the shim then says so and fails open).
 */

/** Which moments the daemon may hold, and what a command hook prints as "nothing to say", per vendor. */
export interface HookTables {
  readonly held: Readonly<Record<string, readonly string[]>>;
  /** The deadline on a held moment, in ms: inside the vendor's own hook timeout there. */
  readonly heldMs: Readonly<Record<string, number>>;
  readonly empty: Readonly<Record<string, string>>;
}

declare const AEP_HOOK_TABLES: HookTables | undefined;

/** The built-in tables, or null in an unbuilt run. */
export const HOOK_TABLES: HookTables | null =
  typeof AEP_HOOK_TABLES === 'undefined' ? null : AEP_HOOK_TABLES;
