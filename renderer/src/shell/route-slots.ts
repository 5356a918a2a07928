/**
 * Routes whose views are built in their own issues: the setup wizard (#/setup,
 * renderer/src/wizard/) and the tray's quick-instruct window (#/quick-instruct). Plug a view in
 * by assigning it here; until then the console shows a short note instead.
 */
import type { ComponentType } from 'react';

/** Props a quick-instruct view receives. */
export interface QuickInstructProps {
  readonly session: string | null;
}

/** The pluggable views. */
export const routeSlots: {
  setup: ComponentType | null;
  quickInstruct: ComponentType<QuickInstructProps> | null;
} = {
  setup: null,
  quickInstruct: null,
};
