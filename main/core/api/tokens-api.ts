/**
 * `POST /api/tokens/rotate`: replaces the operator or hook token at once (file and memory), audited.
 * `POST /api/auth/cookie`: signs the calling browser in with the console cookie (server/auth.ts).
 */
import { err, ok } from '../../../common/result';
import type { DaemonContext } from '../daemon-context';
import { consoleCookieHeader } from '../server/auth';
import type { TokenStore } from '../server/tokens';
import { ApiReply, type ApiHandlers } from './index';

/** The token handlers. */
export function tokensApi(ctx: DaemonContext, tokens: TokenStore): ApiHandlers {
  return {
    'POST /api/tokens/rotate': {
      parse: (raw) => {
        const which = (raw as Record<string, unknown> | undefined)?.which;
        return which === 'operator' || which === 'hook'
          ? ok({ which })
          : err('bad-request', 'which must be "operator" or "hook"');
      },
      handle: ({ which }) => {
        const token = tokens.rotate(which);
        ctx.audit.append({
          actor: 'operator',
          surface: 'api',
          action: 'tokens.rotated',
          session: null,
          commandId: null,
          outcome: 'ok',
          detail: { which },
        });
        return { which, token };
      },
    },
    'POST /api/auth/cookie': {
      handle: (_input, { req }) => {
        const port = req.socket.localPort ?? 0;
        ctx.audit.append({
          actor: 'operator',
          surface: 'console',
          action: 'console.signed-in',
          session: null,
          commandId: null,
          outcome: 'ok',
          detail: { port },
        });
        return new ApiReply(200, { signedIn: true }, undefined, {
          'Set-Cookie': consoleCookieHeader(tokens.get('operator'), port),
        });
      },
    },
  };
}
