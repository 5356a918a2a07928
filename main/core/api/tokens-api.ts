/** `POST /api/tokens/rotate`: replaces the operator or hook token at once (file and memory), audited. */
import { err, ok } from '../../../common/result';
import type { DaemonContext } from '../daemon-context';
import type { TokenStore } from '../server/tokens';
import type { ApiHandlers } from './index';

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
  };
}
