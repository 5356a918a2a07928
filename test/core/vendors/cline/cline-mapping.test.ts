// The Cline hook mapping against every payload recorded from the real CLI 3.0.65
// (test/fixtures/cline/hook-payloads), run by run in the order the CLI fired them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AEP_VERSION } from '../../../../common/aep/envelope';
import { ulid, validateEvent } from '../../../../main/core/aep';
import { VENDOR_ADAPTERS, type MappedEvent } from '../../../../main/core/vendors';
import { clineFallbackType, userInputText } from '../../../../main/core/vendors/cline/hooks';
import {
  loadMappingFixture,
  mustParse,
  pinned,
  runSession,
  testContext,
  withoutComments,
} from '../mapping-context';

const DIR = fileURLToPath(new URL('../../../fixtures/cline/hook-payloads/', import.meta.url));
const adapter = VENDOR_ADAPTERS.cline;

interface Sample {
  readonly file: string;
  readonly run: string;
  readonly script: string;
  readonly at: number;
  readonly payload: Record<string, unknown>;
}

const SAMPLES: Sample[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((file) => {
    const m = /^(.+?)-(?:hubdaemon-)?([A-Za-z]+)-(\d+)-\d+\.json$/.exec(file) as RegExpExecArray;
    return {
      file,
      run: m[1],
      script: m[2],
      at: Number(m[3]),
      payload: JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Record<string, unknown>,
    };
  })
  .sort((a, b) => a.at - b.at);

const runs = (): Map<string, Sample[]> => {
  const out = new Map<string, Sample[]>();
  for (const s of SAMPLES) out.set(s.run, [...(out.get(s.run) ?? []), s]);
  return out;
};

const typesOf = (run: string): string[] =>
  runSession(
    adapter,
    (runs().get(run) ?? []).map((s) => s.payload),
  ).events.map((e) => e.type);

const envelope = (event: MappedEvent, seq: number): Record<string, unknown> => {
  const { key: _k, causeHint: _c, subjectFromCause: _s, ...rest } = event;
  return {
    aep: AEP_VERSION,
    id: ulid(),
    time: new Date(0).toISOString(),
    source: 'aep://localhost/agent/cline/session/x',
    agent: 'cline',
    session: 'x',
    seq,
    epoch: 1,
    ...rest,
  };
};

describe('cline hook payloads recorded from 3.0.65', () => {
  it('there are samples of every event the CLI fires', () => {
    expect(SAMPLES.length).toBeGreaterThan(80);
    expect(new Set(SAMPLES.map((s) => s.payload.hookName))).toEqual(
      new Set([
        'agent_start',
        'agent_resume',
        'agent_end',
        'agent_error',
        'tool_call',
        'tool_result',
        'prompt_submit',
        'session_shutdown',
      ]),
    );
  });

  it.each(SAMPLES.map((s) => [s.file, s] as const))(
    '%s parses, keyed by sessionContext.rootSessionId',
    (_f, s) => {
      const call = mustParse(adapter, s.payload);
      expect(call.session).toBe(
        (s.payload.sessionContext as { rootSessionId: string }).rootSessionId,
      );
      expect(call.cwd).toBe('$WORKSPACE');
      expect(call.agentId).toBeUndefined();
      if (s.script.endsWith('ToolUse'))
        expect(call.tool).toMatchObject({ name: 'run_commands', callId: expect.any(String) });
    },
  );

  it.each([...runs().keys()].map((r) => [r]))(
    'run %s maps to valid AEP events at every capture ceiling',
    (run) => {
      for (const ceiling of ['none', 'metadata', 'redacted', 'full'] as const) {
        const context = testContext({ capture: { default: ceiling, attention: ceiling } });
        const { events } = runSession(
          adapter,
          (runs().get(run) ?? []).map((s) => s.payload),
          context,
        );
        events.forEach((e, i) => {
          const checked = validateEvent(envelope(e, i + 1));
          expect(checked.ok ? 'ok' : checked.error.message, `${run} ${e.type} at ${ceiling}`).toBe(
            'ok',
          );
        });
      }
    },
  );

  it('a plain run: session and run start, tool requested and completed, run finished (h3)', () => {
    expect(typesOf('h3')).toEqual([
      'session.started',
      'run.started',
      'tool.requested',
      'tool.completed',
      'run.finished',
    ]);
  });

  it('a resumed task (--id) keeps the session: a new run with trigger resume (c1)', () => {
    const { events } = runSession(
      adapter,
      (runs().get('c1') ?? []).map((s) => s.payload),
    );
    expect(events.map((e) => e.type)).toEqual([
      'session.started',
      'run.started',
      'tool.requested',
      'tool.completed',
      'run.finished',
      'session.started',
      'run.started',
      'run.finished',
    ]);
    expect(events[6].data).toMatchObject({ trigger: 'resume' });
    expect(events[4].step).toBe('2');
  });

  it('an abort gives only session_shutdown: the open run is cancelled, then the session ends (c2)', () => {
    const { events, state } = runSession(
      adapter,
      (runs().get('c2') ?? []).map((s) => s.payload),
    );
    expect(events.map((e) => e.type)).toEqual([
      'session.started',
      'run.started',
      'tool.requested',
      'run.cancelled',
      'session.ended',
    ]);
    expect(events[3]).toMatchObject({
      data: { by: 'user' },
      causeHint: { type: 'run.started', key: events[1].run },
    });
    expect(state.run).toBeNull();
  });

  it('agent_error fails the run with the error name; the message is redacted-gated (e1)', () => {
    const { events } = runSession(
      adapter,
      (runs().get('e1') ?? []).map((s) => s.payload),
    );
    expect(events.map((e) => e.type)).toEqual(['session.started', 'run.started', 'run.failed']);
    expect(events[2]).toMatchObject({
      severity: 'error',
      data: { reason: 'Error', error: { type: 'Error' } },
    });
    expect(JSON.stringify(events[2].data)).not.toContain('Cannot connect');
    const redacted = testContext({ capture: { default: 'redacted', attention: 'redacted' } });
    const again = runSession(
      adapter,
      (runs().get('e1') ?? []).map((s) => s.payload),
      redacted,
    ).events[2];
    expect(JSON.stringify(again.data)).toContain('Cannot connect to API');
  });

  it('a denied tool is tool.failed, never completed, with its duration (n1)', () => {
    const { events } = runSession(
      adapter,
      (runs().get('n1') ?? []).map((s) => s.payload),
    );
    const failed = events.filter((e) => e.type === 'tool.failed');
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({
      subject: 'run_commands',
      data: {
        tool: { name: 'run_commands', call_id: 'call_stub_1' },
        error: { type: 'tool_error' },
      },
    });
    expect(events.filter((e) => e.type === 'tool.completed')).toHaveLength(0);
    // The aborted first turn closes at shutdown; the queued prompt then starts the session again.
    expect(events.map((e) => e.type).slice(-5)).toEqual([
      'run.cancelled',
      'session.ended',
      'session.started',
      'run.started',
      'run.finished',
    ]);
  });

  it('prompt_submit (steered mid-run text) is steering evidence with the digest of the text, never a run start (s2)', () => {
    const { events } = runSession(
      adapter,
      (runs().get('s2') ?? []).map((s) => s.payload),
    );
    expect(events.filter((e) => e.type === 'run.started')).toHaveLength(1);
    const evidence = events.find((e) => e.type === 'x.cline.prompt.submitted');
    expect(evidence?.data).toMatchObject({
      chars: 'STEER-MARKER-2'.length,
      text_digest: expect.any(String),
    });
    expect(JSON.stringify(evidence)).not.toContain('STEER-MARKER-2');
    expect(userInputText('<user_input mode="act">STEER-MARKER-2</user_input>')).toBe(
      'STEER-MARKER-2',
    );
  });

  it('tool results carry the duration the CLI measured', () => {
    const post = SAMPLES.find((s) => s.file.startsWith('c1-PostToolUse')) as Sample;
    const [event] = adapter.map(
      mustParse(adapter, post.payload),
      { run: 'r', openTools: new Map([['call_stub_1', 'run_commands']]) },
      testContext(),
    ).events;
    expect(event).toMatchObject({
      type: 'tool.completed',
      run: 'r',
      step: '1',
      data: { duration_ms: 16, result_digest: expect.any(String) },
    });
  });
});

describe('cline payload edge cases', () => {
  const base = {
    hookName: 'agent_start',
    sessionContext: { rootSessionId: 'root-1' },
    taskId: 'conv_1',
  };

  it('refuses non-objects, a missing hookName, a missing session and an unnamed tool', () => {
    expect(adapter.parse(42)).toMatchObject({
      ok: false,
      error: { message: 'Cline hook payload is not a JSON object' },
    });
    expect(adapter.parse({ ...base, hookName: '' })).toMatchObject({
      ok: false,
      error: { message: 'Cline hook payload has no hookName' },
    });
    expect(adapter.parse({ hookName: 'agent_start' })).toMatchObject({
      ok: false,
      error: { code: 'invalid-payload' },
    });
    expect(adapter.parse({ ...base, hookName: 'tool_call', tool_call: { id: 'c' } })).toMatchObject(
      {
        ok: false,
        error: { message: 'Cline tool_call payload names no tool' },
      },
    );
  });

  it('falls back to taskId without a sessionContext, and sees subagents by their parent id', () => {
    expect(mustParse(adapter, { hookName: 'agent_start', taskId: 'conv_1' }).session).toBe(
      'conv_1',
    );
    const child = mustParse(adapter, {
      ...base,
      agent_id: 'agent_child',
      parent_agent_id: 'agent_root',
    });
    expect(child.agentId).toBe('agent_child');
    const { events, state } = adapter.map(child, { run: 'r1', openTools: new Map() }, testContext());
    expect(events.map((e) => [e.type, e.subject])).toEqual([
      ['delegation.subagent.started', 'agent_child'],
    ]);
    expect(state.run).toBe('r1');
  });

  it('agent_abort (never fired by 3.0.65) would cancel the run; unknown hooks land in x.cline.*', () => {
    const abort = adapter.map(
      mustParse(adapter, { ...base, hookName: 'agent_abort' }),
      { run: 'r1', openTools: new Map() },
      testContext(),
    );
    expect(abort.events.map((e) => e.type)).toEqual(['run.cancelled']);
    const future = adapter.map(
      mustParse(adapter, { ...base, hookName: 'pre_compact' }),
      { run: null, openTools: new Map() },
      testContext(),
    );
    expect(future.events).toMatchObject([{ type: 'x.cline.pre.compact', data: {} }]);
    expect(clineFallbackType('heartbeat')).toBe('x.cline.session.heartbeat');
  });

  it('no hook moment carries steering (the verb is the hub send_input), and session_shutdown ends the session', () => {
    for (const s of SAMPLES)
      expect(adapter.acceptsSteering(mustParse(adapter, s.payload))).toBe(false);
    expect(adapter.endsSession(mustParse(adapter, { ...base, hookName: 'session_shutdown' }))).toBe(
      true,
    );
  });
});

describe('the Annex A cline.json fixture, against what 3.0.65 does', () => {
  const fixture = loadMappingFixture('cline') as {
    hooks: Record<string, { input: unknown; expected: unknown[] }>;
  };
  const mapCase = (name: string, state = { run: 'r1', openTools: new Map() }) =>
    adapter
      .map(mustParse(adapter, fixture.hooks[name].input), state, testContext())
      .events.map((e) => ({ ...pinned(e), ...(e.step ? { step: e.step } : {}) }));

  it.each([
    'tool_call',
    'tool_result_ok',
    'tool_result_error',
    'agent_error',
    'agent_abort',
    'agent_start_parented',
  ])('%s maps as the fixture pins it where the real CLI agrees', (name) => {
    const expected = withoutComments(fixture.hooks[name].expected) as Record<string, unknown>[];
    const got = mapCase(name);
    if (name === 'agent_start_parented') {
      // A subagent's start opens the delegation pair only: its run is not the session's run.
      expect(got).toEqual([expected[0]]);
      return;
    }
    expect(got).toEqual(expected);
  });

  it('deviations pinned by the recordings: the session key, shutdown closing the open run, no content-free prompt_submit', () => {
    expect(fixture.hooks.agent_start).toBeDefined();
    // The fixture keys by taskId; the recordings carry sessionContext.rootSessionId, which wins.
    expect(
      mustParse(adapter, {
        ...(fixture.hooks.agent_start.input as object),
        sessionContext: { rootSessionId: 'root' },
      }).session,
    ).toBe('root');
    const shutdown = adapter.map(
      mustParse(adapter, fixture.hooks.session_shutdown.input),
      { run: 'r1', openTools: new Map() },
      testContext(),
    );
    expect(shutdown.events.map((e) => e.type)).toEqual(['run.cancelled', 'session.ended']);
    const prompt = adapter.map(
      mustParse(adapter, fixture.hooks.prompt_submit.input),
      { run: 'r1', openTools: new Map() },
      testContext(),
    );
    expect(prompt.events.map((e) => e.type)).toEqual(['x.cline.prompt.submitted']);
  });
});
