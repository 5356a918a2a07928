/**
 * Facts the hook shim's two forms share: the Node bundle (main/cli/commands/hook.ts) and the
 * installed bash fast path (main/core/installer/shim-fast.ts).
 */

/** Deadline for an ordinary hook: far inside every vendor's timeout (Claude Code's SessionEnd budget is 1.5 s+). */
export const ORDINARY_HOOK_DEADLINE_MS = 5_000;
