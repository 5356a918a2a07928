/**
 * `POST /hooks/{vendor}` (hook token): the body is the vendor's hook payload, the reply is what the
 * vendor expects (`application/json`, `{}` when there is nothing to say). Opt-ins ride the query:
 * `instruct=1` (steering), `permissions=1` (permission loop).
 */
import { isVendorId, VENDORS, type VendorId } from '../../../../common/vendors';
import { readJsonBody, sendJson } from '../../server/http-util';
import type { HttpRoute } from '../../server/route-table';
import type { ServerResponse } from 'node:http';
import type { Handover } from '../steering/steering-engine';
import type { HangUp } from '../steering/steering-types';
import type { HookService } from './hook-service';

/** Largest hook payload taken (tool results can be large; beyond this the vendor gets a 413 and proceeds). */
export const MAX_HOOK_BODY = 16 << 20;

/** Tells the service when the vendor hung up before the reply (listened to only by held hooks). */
class ReplyHangUp implements HangUp {
  constructor(private readonly res: ServerResponse) {}

  get happened(): boolean {
    return this.res.destroyed && !this.res.writableEnded;
  }

  onHangUp(listener: () => void): void {
    const res = this.res;
    res.on('close', () => {
      if (!res.writableEnded) listener();
    });
  }
}

/**
 * Settles a hand-over by what became of its reply: delivered once the reply was written in full
 * (`finish`), dropped (`reply-not-written`) when the vendor hung up first.
 */
function settleOnWrite(res: ServerResponse, handover: Handover): void {
  if (res.destroyed) {
    void handover.settle(false);
    return;
  }
  res.once('finish', () => void handover.settle(true));
  res.once('close', () => {
    if (!res.writableFinished) void handover.settle(false);
  });
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
        // Most hook calls carry no query: the URL is parsed only when there is one.
        const q = req.url?.includes('?') === true ? ctx.url.searchParams : null;
        const optIns = { instruct: q?.get('instruct') === '1', permissions: q?.get('permissions') === '1' };
        const outcome = await service.handle(vendor, body.value, optIns, new ReplyHangUp(res));
        const handover = outcome.status === 200 ? outcome.handover : undefined;
        if (handover) settleOnWrite(res, handover);
        try {
          sendJson(res, outcome.status, outcome.body);
        } catch (error) {
          // Settled first: the fallback `{}` below must not count as the hand-over's reply.
          if (handover) void handover.settle(false);
          throw error;
        }
      } catch (error) {
        // Never block an agent on our failure: answer "nothing to say" at once.
        service.failed(vendor, null, null, error);
        sendJson(res, 200, {});
      }
    },
  };
}
