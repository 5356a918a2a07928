/** Plugs the setup wizard into the console's #/setup route slot. */
import { routeSlots } from '../shell/route-slots';
import { SetupWizard } from './SetupWizard';

routeSlots.setup = SetupWizard;

/** The registered view (importing this module is what registers it). */
export const registeredSetup = SetupWizard;
