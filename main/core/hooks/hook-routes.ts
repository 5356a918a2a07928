/**
 * `POST /hooks/{vendor}` (hook token): the body is the vendor's hook payload, the reply is what the
 * vendor expects (`application/json`, `{}` when there is nothing to say). Opt-ins ride the query:
 * `instruct=1` (steering), `permissions=1` (permission loop).
 */
import { isVendorId, VENDORS, type VendorId } from '../../../common/vendors';
import { readJsonBody, sendJson } from '../server/http-util';
import type { HttpRoute } from '../server/route-table';
import type { ServerResponse } from 'node:http';
import type { HangUp } from '../steering/steering-types';
import type { HookService } from './hook-service';

/** Largest hook payload taken (tool results can be large; beyond this the vendor gets a 413 and proceeds). */
export const MAX_HOOK_BODY = 16 << 20;

/** Tells the service when the vendor hung up before the reply (listened to only by held hooks). */
function hangUpOf(res: ServerResponse): HangUp {
  return {
    get happened() {
      return res.destroyed && !res.writableEnded;
    },
    onHangUp: (listener) => {
      res.on('close', () => {
        if (!res.writableEnded) listener();
      });
    },
  };
}

/** The hook route over a hook service. */
export function hookRoute(service: HookService, onHook: (vendor: VendorId) => void = () => undefined): HttpRoute {
  return {
    method: 'POST',
    path: '/hooks/:vendor',
    auth: 'hook',
    handler: async (req, res, ctx) => {
      const vendor = ctx.params.vendor;
      if (!isVendorId(vendor)) {
        sendJson(res, 404, { error: 'unknown-vendor', detail: `no hook endpoint for '${vendor}' (vendors: ${VENDORS.join(', ')})` });
        return;
      }
      try {
        onHook(vendor);
        const body = await readJsonBody(req, MAX_HOOK_BODY);
        if (!body.ok) {
          if (body.error.code === 'too-large') sendJson(res, 413, { error: 'payload-too-large', detail: body.error.message });
          else if (body.error.code === 'invalid-json') sendJson(res, 400, { error: 'invalid-payload', detail: body.error.message });
          return;
        }
        const q = ctx.url.searchParams;
        const optIns = { instruct: q.get('instruct') === '1', permissions: q.get('permissions') === '1' };
        const outcome = await service.handle(vendor, body.value, optIns, hangUpOf(res));
        sendJson(res, outcome.status, outcome.body);
      } catch (error) {
        // Never block an agent on our failure: answer "nothing to say" at once.
        service.failed(vendor, null, null, error);
        sendJson(res, 200, {});
      }
    },
  };
}
