/**
 * Registers a steering rig for the enclosing `describe`: opened in beforeAll, closed (with every
 * stub the tests tracked) in afterAll. A test asks for it with `rig(ctx)`, which skips the test
 * with the exact reason when the daemon's `serve` is not available yet.
 */
import { afterAll, beforeAll, type TestContext } from 'vitest';
import { CompanionUnavailable } from './companion';
import type { StubServer } from './model-stubs/stub-server';
import { openSteeringRig, type SteeringRig } from './steering-rig';
import type { CliVendor } from './vendor-clis';

/** What a describe block gets. */
export interface SteeringRigHandle {
  /** The open rig; skips the calling test when the daemon is pending. */
  rig(ctx: TestContext): SteeringRig;
  /** Closes `stub` with the rig. */
  track<T extends StubServer>(stub: T): T;
}

/** Opens the rig for the enclosing describe (see `openSteeringRig` for `options`). */
export function useSteeringRig(
  vendor: CliVendor,
  options: Parameters<typeof openSteeringRig>[1] = {},
): SteeringRigHandle {
  let open: SteeringRig | undefined;
  let pending: string | undefined;
  const stubs: StubServer[] = [];
  beforeAll(async () => {
    try {
      open = await openSteeringRig(vendor, options);
    } catch (error) {
      if (!(error instanceof CompanionUnavailable)) throw error;
      pending = error.message;
    }
  });
  afterAll(async () => {
    for (const stub of stubs) await stub.close();
    await open?.close();
  });
  return {
    rig: (ctx) => open ?? ctx.skip(`daemon pending: ${pending ?? 'the rig did not open'}`),
    track: (stub) => {
      stubs.push(stub);
      return stub;
    },
  };
}
