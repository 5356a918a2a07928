import { afterEach, describe, expect, it, vi } from 'vitest';
import { helpOrRefusal, parseArgs } from '../../../main/cli/locate-daemon';

const KNOWN = new Set(['vendor', 'dry-run']);
const USAGE = 'usage: aep-companion thing [--vendor V] [--dry-run]\n';

function check(args: string[]) {
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const code = helpOrRefusal('thing', parseArgs(args, ['vendor']), KNOWN, USAGE);
  return {
    code,
    out: out.mock.calls.map((c) => String(c[0])).join(''),
    err: err.mock.calls.map((c) => String(c[0])).join(''),
  };
}

afterEach(() => vi.restoreAllMocks());

describe('helpOrRefusal', () => {
  it('goes on (null) for known options only', () => {
    expect(check(['--vendor', 'codex', '--dry-run'])).toEqual({ code: null, out: '', err: '' });
  });

  it('prints the usage and exits 0 for --help', () => {
    expect(check(['--help'])).toEqual({ code: 0, out: USAGE, err: '' });
  });

  it('refuses an unknown option with the usage and exit 2', () => {
    expect(check(['--vendor', 'codex', '--bogus'])).toEqual({
      code: 2,
      out: '',
      err: `aep-companion thing: unexpected argument '--bogus'\n${USAGE}`,
    });
  });

  it('refuses a stray positional argument', () => {
    expect(check(['stray'])).toMatchObject({
      code: 2,
      err: expect.stringContaining("unexpected argument 'stray'"),
    });
  });
});
