import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseAcpSteerCapability,
  parseAppServerSteerCapability,
  parseSteerCapability,
} from '../../../../main/core/launched/steer/capability';
import { initializeResult, loadWire, wireFiles } from './wire';

/** What each recorded agent negotiates, from its own initialize answer. */
const EXPECTED: Record<string, { mechanism: string; advertised: string[] }> = {
  'claude-agent-acp': {
    mechanism: 'concurrent-prompt',
    advertised: ['concurrent-prompt', 'session-steering'],
  },
  'zed-claude-agent-acp': { mechanism: 'concurrent-prompt', advertised: ['concurrent-prompt'] },
  'codex-acp': { mechanism: 'session-steering', advertised: ['session-steering'] },
  'codex-app-server': { mechanism: 'turn-steer', advertised: ['turn-steer'] },
  'gemini-cli': { mechanism: 'none', advertised: [] },
  'qwen-code': { mechanism: 'none', advertised: [] },
  'zed-codex-acp': { mechanism: 'none', advertised: [] },
};

const family = (fixture: string) =>
  Object.keys(EXPECTED).find((k) => fixture.startsWith(`${k}-`)) as string;

describe('steer capability from the recorded initialize answers', () => {
  for (const name of wireFiles()) {
    it(`${name}`, () => {
      const file = loadWire(name);
      const protocol = name.startsWith('codex-app-server') ? 'codex-app-server' : 'acp';
      const cap = parseSteerCapability(protocol, initializeResult(file));
      expect({ mechanism: cap.mechanism, advertised: cap.advertised }).toEqual(
        EXPECTED[family(name)],
      );
    });
  }

  it('never reads the agent name or version: a renamed Qwen stays queue-only, a renamed Claude bridge stays capable', () => {
    const qwen = initializeResult(loadWire('qwen-code-0.24.4.steer.concurrent')) as Record<
      string,
      unknown
    >;
    const claude = initializeResult(loadWire('claude-agent-acp-0.101.0.steer.folded')) as Record<
      string,
      unknown
    >;
    const swapped = (init: Record<string, unknown>, name: string) => ({
      ...init,
      agentInfo: { name, version: '99.0.0' },
    });
    expect(
      parseAcpSteerCapability(swapped(qwen, '@agentclientprotocol/claude-agent-acp')).mechanism,
    ).toBe('none');
    expect(parseAcpSteerCapability(swapped(claude, 'qwen-code')).mechanism).toBe(
      'concurrent-prompt',
    );
  });
});

describe('steer capability fails closed', () => {
  const withQueueing = (value: unknown) => ({
    agentCapabilities: { _meta: { claudeCode: { promptQueueing: value } } },
  });

  it.each([['true'], [1], ['yes'], [{}], [[true]], [null], [undefined]])(
    'promptQueueing %j is not true → none',
    (value) => {
      expect(parseAcpSteerCapability(withQueueing(value)).mechanism).toBe('none');
    },
  );

  it.each([
    [null],
    [undefined],
    ['{"agentCapabilities":{}}'],
    [42],
    [[]],
    [{ agentCapabilities: [] }],
  ])('initialize %j → none', (value) => {
    expect(parseAcpSteerCapability(value).mechanism).toBe('none');
  });

  it('ignores inherited properties and non-plain objects', () => {
    const proto = { claudeCode: { promptQueueing: true } };
    const meta = Object.create(proto) as Record<string, unknown>;
    expect(parseAcpSteerCapability({ agentCapabilities: { _meta: meta } }).mechanism).toBe('none');
    class Meta {
      claudeCode = { promptQueueing: true };
    }
    expect(parseAcpSteerCapability({ agentCapabilities: { _meta: new Meta() } }).mechanism).toBe(
      'none',
    );
  });

  it('steering.supported only counts at the top-level _meta, and only when exactly true', () => {
    expect(parseAcpSteerCapability({ _meta: { steering: { supported: true } } }).mechanism).toBe(
      'session-steering',
    );
    expect(
      parseAcpSteerCapability({ agentCapabilities: { _meta: { steering: { supported: true } } } })
        .mechanism,
    ).toBe('none');
    expect(parseAcpSteerCapability({ _meta: { steering: { supported: 'true' } } }).mechanism).toBe(
      'none',
    );
  });

  it('an app-server answer without its userAgent is malformed → none', () => {
    expect(parseAppServerSteerCapability({}).mechanism).toBe('none');
    expect(parseAppServerSteerCapability({ userAgent: 7 }).mechanism).toBe('none');
    expect(parseAppServerSteerCapability(null).mechanism).toBe('none');
  });

  it('never throws and never answers a mechanism for arbitrary JSON without the exact markers', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value) ?? '';
        const cap = parseAcpSteerCapability(value);
        if (!text.includes('promptQueueing') && !text.includes('supported'))
          expect(cap.mechanism).toBe('none');
        expect(['none', 'concurrent-prompt', 'session-steering']).toContain(cap.mechanism);
      }),
    );
  });
});
