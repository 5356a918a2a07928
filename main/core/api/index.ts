/**
 * The /api router, typed by common/api.ts. Each concern registers handlers for its routes; a
 * handler's optional `parse` validates the input (query for GET, JSON body otherwise) before
 * `handle` runs. Unknown routes get 404 JSON, bad bodies 400 JSON, wrong methods 405 JSON.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiRequest, ApiResponse, ApiRoute } from '../../../common/api';
import type { Result } from '../../../common/result';
import { createLogger } from '../logger';
import { readJsonBody, sendError, sendJson } from '../server/http-util';
import type { Disposer, HttpRoute, Principal, RequestContext } from '../server/route-table';

const log = createLogger('api');

/** Largest /api request body. */
const MAX_API_BODY = 1 << 20;

/** What a handler learns about its call. */
export interface ApiCallContext {
  readonly principal: Principal;
  readonly url: URL;
  readonly req: IncomingMessage;
}

/** A non-JSON or non-200 answer (an error, an export file). */
export class ApiReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly contentType?: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** A refusal with a status and the `{ error, detail }` body of common/api.ts. */
export const apiError = (status: number, error: string, detail?: string): ApiReply =>
  new ApiReply(status, { error, ...(detail !== undefined ? { detail } : {}) });

/** A handler result: the route's response, or an ApiReply. */
export type ApiResult<R extends ApiRoute> = ApiResponse<R> | ApiReply;

/** One route's handler: validated input in, typed response out. */
export interface ApiHandler<R extends ApiRoute> {
  /** Validates the raw input (query object for GET, parsed JSON body otherwise); absent for `void` inputs. */
  readonly parse?: (raw: unknown) => Result<ApiRequest<R>>;
  readonly handle: (
    input: ApiRequest<R>,
    ctx: ApiCallContext,
  ) => ApiResult<R> | Promise<ApiResult<R>>;
}

/** A partial map of handlers, as one concern registers them. */
export type ApiHandlers = { readonly [R in ApiRoute]?: ApiHandler<R> };

type AnyHandler = {
  parse?: (raw: unknown) => Result<unknown>;
  handle: (input: unknown, ctx: ApiCallContext) => unknown;
};

/** The /api route table. */
export class ApiRouter {
  private readonly handlers = new Map<string, AnyHandler>();

  /** Registers handlers; a route registered twice is a programming error. Returns the removal. */
  register(handlers: ApiHandlers): Disposer {
    const keys = Object.keys(handlers);
    for (const key of keys) {
      if (this.handlers.has(key)) throw new Error(`api route ${key} is already registered`);
    }
    for (const key of keys) this.handlers.set(key, (handlers as Record<string, AnyHandler>)[key]);
    return () => {
      for (const key of keys) this.handlers.delete(key);
    };
  }

  /** The listener route serving /api/* (operator token only). */
  route(): HttpRoute {
    return {
      method: 'GET',
      path: '/api/*',
      auth: 'operator',
      handler: (req, res, ctx) => this.dispatch(req, res, ctx),
    };
  }

  /** The same route for every other method (the route table matches one method per entry). */
  routes(): HttpRoute[] {
    return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((method) => ({ ...this.route(), method }));
  }

  private async dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
  ): Promise<void> {
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const path = ctx.url.pathname.replace(/\/+$/, '');
    const handler = this.handlers.get(`${method} ${path}`);
    if (!handler) {
      const allowed = [...this.handlers.keys()]
        .filter((k) => k.endsWith(` ${path}`))
        .map((k) => k.split(' ')[0]);
      if (allowed.length > 0)
        return sendError(res, 405, 'method-not-allowed', `${method} is not allowed on ${path}`, {
          allow: allowed,
        });
      return sendError(res, 404, 'not-found', `no API route ${method} ${path}`);
    }
    let raw: unknown;
    if (method === 'GET' || method === 'DELETE') {
      raw = Object.fromEntries([...ctx.url.searchParams].filter(([k]) => k !== 'access_token'));
    } else {
      const body = await readJsonBody(req, MAX_API_BODY);
      if (!body.ok) {
        if (body.error.code === 'too-large')
          return sendError(res, 413, 'payload-too-large', body.error.message);
        if (body.error.code === 'invalid-json')
          return sendError(res, 400, 'bad-request', body.error.message);
        return;
      }
      raw = body.value;
    }
    let input: unknown = raw;
    if (handler.parse) {
      const parsed = handler.parse(raw);
      if (!parsed.ok) return sendError(res, 400, parsed.error.code, parsed.error.message);
      input = parsed.value;
    }
    let result: unknown;
    try {
      result = await handler.handle(input, { principal: ctx.principal, url: ctx.url, req });
    } catch (e) {
      log.error('api handler failed', {
        route: `${method} ${path}`,
        error: (e as Error).stack ?? String(e),
      });
      return sendError(res, 500, 'internal-error', (e as Error).message);
    }
    if (result instanceof ApiReply) {
      if (result.contentType === undefined)
        return sendJson(res, result.status, result.body, { ...result.headers });
      const text = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
      res.writeHead(result.status, {
        'Content-Type': result.contentType,
        'Content-Length': Buffer.byteLength(text),
        'Cache-Control': 'no-store',
        ...result.headers,
      });
      res.end(req.method === 'HEAD' ? undefined : text);
      return;
    }
    sendJson(res, 200, result ?? null);
  }
}
