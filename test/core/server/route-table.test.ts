import { describe, expect, it } from 'vitest';
import { RouteTable, type HttpRoute } from '../../../main/core/server/route-table';

const route = (method: string, path: string): HttpRoute => ({
  method,
  path,
  auth: 'none',
  handler: () => undefined,
});

describe('RouteTable', () => {
  it('prefers exact paths over patterns over prefixes, and extracts pattern parameters', () => {
    const table = new RouteTable();
    const prefix = route('GET', '/api/*');
    const pattern = route('GET', '/api/:thing');
    const exact = route('GET', '/api/status');
    table.register(prefix);
    table.register(pattern);
    table.register(exact);
    expect(table.lookup('GET', '/api/status', false)).toEqual({
      kind: 'match',
      match: { route: exact, params: {} },
    });
    expect(table.lookup('GET', '/api/other', false)).toEqual({
      kind: 'match',
      match: { route: pattern, params: { thing: 'other' } },
    });
    expect(table.lookup('GET', '/api/a/b', false)).toEqual({
      kind: 'match',
      match: { route: prefix, params: {} },
    });
  });

  it('reports method-not-allowed with the allowed methods, not-found otherwise, and forgets disposed routes', () => {
    const table = new RouteTable();
    const dispose = table.register(route('POST', '/hooks/:vendor'));
    expect(table.lookup('GET', '/hooks/codex', false)).toEqual({
      kind: 'method-not-allowed',
      allow: ['POST'],
    });
    expect(table.lookup('POST', '/nothing', false)).toEqual({ kind: 'not-found' });
    void dispose();
    expect(table.lookup('POST', '/hooks/codex', false)).toEqual({ kind: 'not-found' });
  });
});
