/**
 * Serves the built console (browser mode) at `/`. The assets hold no secrets (the operator token
 * reaches the page once in the URL fragment, which browsers never send, and the page trades it for
 * the console cookie of auth.ts), so they answer without a token; every response carries a strict
 * CSP whose connect-src is only the daemon's own origin.
 */
import { createReadStream, statSync } from 'node:fs';
import { extname, resolve, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './http-util';
import type { HttpRoute, RequestContext } from './route-table';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** The Content-Security-Policy of the browser console served on `port`. */
export function consoleCsp(port: number): string {
  const own = [
    `http://127.0.0.1:${port}`,
    `ws://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `ws://localhost:${port}`,
  ];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${own.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** The route serving `consoleDir` (index.html for `/` and for unknown extension-less paths). */
export function staticConsoleRoute(consoleDir: string, port: () => number): HttpRoute {
  const root = resolve(consoleDir);
  const serveFile = (res: ServerResponse, file: string, head: boolean): boolean => {
    let size: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) return false;
      size = st.size;
    } catch {
      return false;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': size,
      'Content-Security-Policy': consoleCsp(port()),
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-cache',
    });
    if (head) res.end();
    else
      createReadStream(file)
        .on('error', () => res.destroy())
        .pipe(res);
    return true;
  };
  return {
    method: 'GET',
    path: '/*',
    auth: 'none',
    handler: (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => {
      let rel: string;
      try {
        rel = decodeURIComponent(ctx.url.pathname);
      } catch {
        return sendError(res, 400, 'bad-request', 'malformed path');
      }
      const file = resolve(root, `.${rel}`);
      if (file !== root && !file.startsWith(root + sep))
        return sendError(res, 404, 'not-found', 'no such file');
      const head = req.method === 'HEAD';
      const target = rel.endsWith('/') ? resolve(file, 'index.html') : file;
      if (serveFile(res, target, head)) return;
      if (extname(rel) === '' && serveFile(res, resolve(root, 'index.html'), head)) return;
      sendError(res, 404, 'not-found', `no such file: ${rel}`);
    },
  };
}
