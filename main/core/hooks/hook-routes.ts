/**
 * `POST /hooks/{vendor}` (hook token): the body is the vendor's hook payload, the reply is what the
 * vendor expects (`application/json`, `{}` when there is nothing to say). Opt-ins ride the query:
 * `instruct=1` (steering), `permissions=1` (permission loop).
 */
import { isVendorId, VENDORS, type VendorId } from '../../../common/vendors';
import type { Result } from '../../../common/result';
import { readJsonBody, sendJson } from '../server/http-util';
import type { HttpRoute } from '../server/route-table';
import type { ServerResponse } from 'node:http';
import type { Handover } from '../steering/steering-engine';
import type { HangUp } from '../steering/steering-types';
import type { HookService } from './hook-service';

/** Largest hook payload taken (tool results can be large; beyond this the vendor gets a 413 and proceeds). */
export const MAX_HOOK_BODY = 16 << 20;

/** Where a hook's reply goes (a node:http response); also its hang-up signal. */
interface HookReply extends HangUp {
  json(status: number, body: unknown): void;
  /** Settles a hand-over by what became of the reply: delivered once written in full, else dropped. */
  settleOnWrite(handover: Handover): void;
}

/** A node:http response as a hook reply. */
class ResponseReply implements HookReply {
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

  json(status: number, body: unknown): void {
    sendJson(this.res, status, body);
  }

  /** Delivered once the reply was written in full (`finish`), dropped when the vendor hung up first. */
  settleOnWrite(handover: Handover): void {
    const res = this.res;
    if (res.destroyed) {
      void handover.settle(false);
      return;
    }
    res.once('finish', () => void handover.settle(true));
    res.once('close', () => {
      if (!res.writableFinished) void handover.settle(false);
    });
  }
}

type HookBody = Result<unknown, 'too-large' | 'aborted' | 'invalid-json'>;

/**
 * Answers one hook call: the vendor checked, the body read and parsed,
 * the service's outcome sent, a hand-over settled by what became of the reply.
 */
async function answer(
  service: HookService,
  onHook: (vendor: VendorId, payload: unknown) => void,
  vendor: string,
  read: () => HookBody | Promise<HookBody>,
  query: URLSearchParams | null,
  reply: HookReply,
): Promise<void> {
  if (!isVendorId(vendor)) {
    reply.json(404, { error: 'unknown-vendor', detail: `no hook endpoint for '${vendor}' (vendors: ${VENDORS.join(', ')})` });
    return;
  }
  try {
    const body = await read();
    if (!body.ok) {
      onHook(vendor, null);
      if (body.error.code === 'too-large') reply.json(413, { error: 'payload-too-large', detail: body.error.message });
      else if (body.error.code === 'invalid-json') reply.json(400, { error: 'invalid-payload', detail: body.error.message });
      return;
    }
    onHook(vendor, body.value);
    const optIns = { instruct: query?.get('instruct') === '1', permissions: query?.get('permissions') === '1' };
    const outcome = await service.handle(vendor, body.value, optIns, reply);
    const handover = outcome.status === 200 ? outcome.handover : undefined;
    if (handover) reply.settleOnWrite(handover);
    try {
      reply.json(outcome.status, outcome.body);
    } catch (error) {
      // Settled first: the fallback `{}` below must not count as the hand-over's reply.
      if (handover) void handover.settle(false);
      throw error;
    }
  } catch (error) {
    // Never block an agent on our failure: answer "nothing to say" at once.
    service.failed(vendor, null, null, error);
    reply.json(200, {});
  }
}

/** The hook route over a hook service. */
export function hookRoute(
  service: HookService,
  onHook: (vendor: VendorId, payload: unknown) => void = () => undefined,
): HttpRoute {
  return {
    method: 'POST',
    path: '/hooks/:vendor',
    auth: 'hook',
    handler: (req, res, ctx) =>
      answer(
        service,
        onHook,
        ctx.params.vendor,
        () => readJsonBody(req, MAX_HOOK_BODY),
        // Most hook calls carry no query: the URL is parsed only when there is one.
        req.url?.includes('?') === true ? ctx.url.searchParams : null,
        new ResponseReply(res),
      ),
  };
}
