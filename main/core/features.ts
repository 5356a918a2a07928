/**
 * The features the daemon starts, in order. Each module appends one import and one entry here;
 * a feature is `(ctx: DaemonContext) => Disposer | Promise<Disposer>`.
 */
import type { Feature } from './daemon-context';
import { hooksFeature } from './hooks/hooks-feature';
import { installerApiFeature } from './installer/installer-api';
import { agentsFeature } from './launched/launched-feature';
import { openhandsFeature } from './vendors/openhands/feature';

/** Every feature of the product. */
export const FEATURES: readonly Feature[] = [hooksFeature, installerApiFeature(), agentsFeature, openhandsFeature];
