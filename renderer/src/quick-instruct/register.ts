/** Plugs the quick-instruct view into the console's #/quick-instruct route slot. */
import { routeSlots } from '../shell/route-slots';
import { QuickInstruct } from './QuickInstruct';

routeSlots.quickInstruct = QuickInstruct;

/** The registered view (importing this module is what registers it). */
export const registeredQuickInstruct = QuickInstruct;
