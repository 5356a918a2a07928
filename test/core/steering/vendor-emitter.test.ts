import { describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import type { ControlCapability } from '../../../common/aep/frames';
import type { EmitterLink } from '../../../main/core/relay/emitter-link';
import { MAX_CAUSE_KEYS, sessionSource, VendorEmitter } from '../../../main/core/steering/vendor-emitter';

/** A link that records claims and emitted batches. */
class FakeLink implements EmitterLink {
  readonly claims: [string, ControlCapability | undefined][] = [];
  readonly released: string[] = [];
  readonly batches: AepEvent[][] = [];
  claim(session: string, control?: ControlCapability): void {
    this.claims.push([session, control]);
  }
  release(session: string): void {
    this.released.push(session);
  }
  async emit(events: AepEvent | readonly AepEvent[]): Promise<void> {
    const list = Array.isArray(events) ? (events as AepEvent[]) : [events as AepEvent];
    this.batches.push(list);
  }
  onCommand(): () => void {
    return () => undefined;
  }
  close(): void {}
}

let n = 0;
const make = (link = new FakeLink()) => ({ link, emitter: new VendorEmitter('codex', link, 7, () => Date.parse('2026-11-29T10:00:00Z'), () => `ID${++n}`) });

describe('VendorEmitter', () => {
  it('stamps consecutive positions per session in the current epoch, with our source and agent', () => {
    const { emitter } = make();
    const [a, b] = emitter.stamp('s1', [{ type: 'progress.status' }, { type: 'progress.status' }]);
    const [c] = emitter.stamp('s2', [{ type: 'progress.status' }]);
    expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 1]);
    expect(a).toMatchObject({ aep: '0.1', agent: 'codex', session: 's1', epoch: 7, source: sessionSource('codex', 's1'), data: {} });
  });

  it('produces the same JSON for the same draft fields in any order of definition', () => {
    const { emitter } = make();
    const [e] = emitter.stamp('s1', [{ data: { x: 1 }, cause: 'C', type: 'control.accepted', severity: 'notice' }]);
    expect(Object.keys(e)).toEqual(['aep', 'id', 'type', 'time', 'source', 'agent', 'session', 'seq', 'epoch', 'cause', 'severity', 'data']);
  });

  it('resolves a cause hint to the id of the event that carried the key', () => {
    const { emitter } = make();
    const [requested] = emitter.stampMapped('s1', [{ type: 'tool.requested', capture: 'metadata', data: {}, key: 'call-1' }]);
    const [completed] = emitter.stampMapped('s1', [{ type: 'tool.completed', capture: 'metadata', data: {}, causeHint: { type: 'tool.requested', key: 'call-1' } }]);
    expect(completed.cause).toBe(requested.id);
  });

  it('sets an attention follower\'s subject to the id of the attention.requested its cause hint names (AEP-0002 §7.1)', () => {
    const { emitter } = make();
    const [request] = emitter.stampMapped('s1', [
      { type: 'attention.requested', subject: 'terminal:sudo', capture: 'metadata', data: { kind: 'permission', prompt: 'p' }, key: 'terminal:sudo' },
    ]);
    const followers = emitter.stampMapped(
      's1',
      ['attention.answered', 'attention.resolved', 'attention.timeout'].map((type) => ({
        type,
        subject: 'terminal:sudo',
        capture: 'metadata' as const,
        data: {},
        causeHint: { type: 'attention.requested', key: 'terminal:sudo' },
        subjectFromCause: true,
      })),
    );
    const [answered, autoResolved, resolved, timeout] = followers;
    expect([answered, resolved, timeout].map((e) => [e.type, e.subject, e.cause])).toEqual([
      ['attention.answered', request.id, request.id],
      ['attention.resolved', request.id, request.id],
      ['attention.timeout', request.id, request.id],
    ]);
    expect([autoResolved.type, autoResolved.subject]).toEqual(['attention.resolved', request.id]);
    expect(request.subject).toBe('terminal:sudo');
  });

  it('resolves an answer the vendor applied itself right after it, naming the same request', () => {
    const { emitter } = make();
    const [request] = emitter.stampMapped('s1', [
      { type: 'attention.requested', subject: 'k', capture: 'redacted', data: { kind: 'permission', prompt: 'p' }, key: 'k' },
    ]);
    const out = emitter.stampMapped('s1', [
      { type: 'attention.answered', subject: 'k', run: 't1', capture: 'redacted', data: { answer: { option: 'once' }, via: 'oob' }, causeHint: { type: 'attention.requested', key: 'k' }, subjectFromCause: true },
    ]);
    expect(out.map((e) => [e.type, e.subject, e.seq])).toEqual([
      ['attention.answered', request.id, 2],
      ['attention.resolved', request.id, 3],
    ]);
    expect(out[1]).toMatchObject({ cause: out[0].id, run: 't1', capture: 'metadata', data: { resolution: 'answered' } });
    const [atNone] = emitter.stampMapped('s1', [{ type: 'attention.answered', subject: 'k', capture: 'none', causeHint: { type: 'attention.requested', key: 'k' }, subjectFromCause: true }]).slice(1);
    expect([atNone.type, atNone.capture, 'data' in atNone]).toEqual(['attention.resolved', 'none', false]);
  });

  it('keeps the mapped subject of a follower whose request it cannot resolve, and of events without the flag', () => {
    const { emitter } = make();
    emitter.stampMapped('s1', [{ type: 'tool.requested', subject: 'Bash', capture: 'metadata', data: {}, key: 'c1' }]);
    const [orphan] = emitter.stampMapped('s1', [
      { type: 'attention.timeout', subject: 'never-seen', capture: 'metadata', data: {}, causeHint: { type: 'attention.requested', key: 'never-seen' }, subjectFromCause: true },
    ]);
    const [completed] = emitter.stampMapped('s1', [
      { type: 'tool.completed', subject: 'Bash', capture: 'metadata', data: {}, causeHint: { type: 'tool.requested', key: 'c1' } },
    ]);
    expect([orphan.subject, orphan.cause]).toEqual(['never-seen', undefined]);
    expect(completed.subject).toBe('Bash');
  });

  it('omits data entirely at capture none (envelope only) and keeps an empty payload otherwise', () => {
    const { emitter } = make();
    const [none] = emitter.stampMapped('s1', [{ type: 'attention.requested', subject: 'x', capture: 'none' }]);
    const [drafted] = emitter.stamp('s1', [{ type: 'progress.status', capture: 'none', data: { message: 'x' } }]);
    const [metadata] = emitter.stampMapped('s1', [{ type: 'run.finished', capture: 'metadata' }]);
    expect('data' in none).toBe(false);
    expect('data' in drafted).toBe(false);
    expect(metadata.data).toEqual({});
  });

  it('claims again only when the declaration changes', () => {
    const { link, emitter } = make();
    emitter.declare('s1', { instruct: true, permissions: false }, 'x.codex.control.instruct');
    emitter.declare('s1', { instruct: true, permissions: false }, 'x.codex.control.instruct');
    emitter.declare('s1', { instruct: false, permissions: true }, 'x.codex.control.instruct');
    expect(link.claims.map(([, c]) => c?.accepts)).toEqual([['x.codex.control.instruct'], ['control.attention.respond']]);
  });

  it('keeps the seq counter after a release so a later event never reuses a position', () => {
    const { link, emitter } = make();
    emitter.declare('s1', { instruct: true, permissions: false }, 'x.codex.control.instruct');
    emitter.stamp('s1', [{ type: 'progress.status' }]);
    emitter.release('s1');
    expect(link.released).toEqual(['s1']);
    expect(emitter.stamp('s1', [{ type: 'progress.status' }])[0].seq).toBe(2);
  });

  it('sends stamped events to the relay in call order', async () => {
    const { link, emitter } = make();
    const first = emitter.stamp('s1', [{ type: 'progress.status' }]);
    const second = emitter.stamp('s1', [{ type: 'progress.status' }]);
    await Promise.all([emitter.send(first), emitter.send(second), emitter.send([])]);
    expect(link.batches.map((b) => b.map((e) => e.seq))).toEqual([[1], [2]]);
  });
});

describe('VendorEmitter memory bounds', () => {
  it('holds at most maxSessions sessions, letting the least recently used go (claim included)', () => {
    const link = new FakeLink();
    const emitter = new VendorEmitter('codex', link, 7, () => 0, () => `ID${++n}`, { maxSessions: 3 });
    for (const s of ['a', 'b', 'c']) emitter.stamp(s, [{ type: 'progress.status' }]);
    emitter.stamp('a', [{ type: 'progress.status' }]);
    emitter.stamp('d', [{ type: 'progress.status' }]);
    expect(emitter.tracked).toBe(3);
    // 'b' was the least recently used.
    expect(link.released).toEqual(['b']);
  });

  it('keeps the least-recently-used order across repeated uses of one session and across forgetting it', () => {
    const link = new FakeLink();
    const emitter = new VendorEmitter('codex', link, 7, () => 0, () => `ID${++n}`, { maxSessions: 3 });
    // A hook call asks for its session several times in a row; then another comes between.
    for (const s of ['a', 'a', 'b', 'b', 'c', 'a', 'a', 'd']) emitter.stamp(s, [{ type: 'progress.status' }]);
    expect(link.released).toEqual(['b']);
    // 'a' is the most recently used but one: forgotten, the order of the rest stands, and it comes back as new.
    emitter.forget('a');
    for (const s of ['a', 'a', 'e']) emitter.stamp(s, [{ type: 'progress.status' }]);
    expect(link.released).toEqual(['b', 'a', 'c']);
    emitter.stamp('c', [{ type: 'progress.status' }]);
    expect(link.released).toEqual(['b', 'a', 'c', 'd']);
  });

  it('resumes a session it let go after the highest stored position, so no position is reused', () => {
    const stored = new Map<string, number>();
    const emitter = new VendorEmitter('codex', new FakeLink(), 7, () => 0, () => `ID${++n}`, { maxSessions: 1, resumeSeq: (s) => stored.get(s) ?? 0 });
    const [a1, a2] = emitter.stamp('a', [{ type: 'progress.status' }, { type: 'progress.status' }]);
    stored.set('a', a2.seq as number);
    emitter.stamp('b', [{ type: 'progress.status' }]);
    expect(emitter.tracked).toBe(1);
    const [a3] = emitter.stamp('a', [{ type: 'progress.status' }]);
    expect([a1.seq, a2.seq, a3.seq]).toEqual([1, 2, 3]);
  });

  it('lets go of sessions unused since a time (ended or silent), newest kept', () => {
    let now = 0;
    const link = new FakeLink();
    const emitter = new VendorEmitter('codex', link, 7, () => now, () => `ID${++n}`);
    emitter.stamp('old', [{ type: 'progress.status' }]);
    now = 1_000;
    emitter.stamp('new', [{ type: 'progress.status' }]);
    expect(emitter.forgetIdle(500)).toBe(1);
    expect(emitter.tracked).toBe(1);
    expect(link.released).toEqual(['old']);
  });

  it('lets go of a tool call\'s key once the call ends, so a long session holds O(1) keys', () => {
    const { emitter } = make();
    const meta = { capture: 'metadata' as const, data: {} };
    const [run] = emitter.stampMapped('s1', [{ type: 'run.started', run: 'r1', key: 'r1', ...meta }]);
    const ends = ['tool.completed', 'tool.failed', 'tool.denied'];
    for (let i = 0; i < 3_000; i++) {
      const [requested] = emitter.stampMapped('s1', [{ type: 'tool.requested', key: `c${i}`, ...meta }]);
      const [ended] = emitter.stampMapped('s1', [
        { type: ends[i % 3], key: `c${i}`, causeHint: { type: 'tool.requested', key: `c${i}` }, ...meta },
      ]);
      expect(ended.cause).toBe(requested.id);
    }
    // Only the open run's key is held; the subagent pair closes the same way.
    expect(emitter.causeKeys('s1')).toBe(1);
    emitter.stampMapped('s1', [{ type: 'delegation.subagent.started', key: 'a1', ...meta }]);
    const [stopped] = emitter.stampMapped('s1', [
      { type: 'delegation.subagent.stopped', key: 'a1', causeHint: { type: 'delegation.subagent.started', key: 'a1' }, ...meta },
    ]);
    expect(stopped.cause).toBeDefined();
    const [finished] = emitter.stampMapped('s1', [
      { type: 'run.finished', run: 'r1', key: 'r1', causeHint: { type: 'run.started', key: 'r1' }, ...meta },
    ]);
    expect(finished.cause).toBe(run.id);
    expect(emitter.causeKeys('s1')).toBe(0);
  });

  it('bounds the keys of calls that never end (lost hooks) per session', () => {
    const { emitter } = make();
    for (let i = 0; i < MAX_CAUSE_KEYS + 500; i++) {
      emitter.stampMapped('s1', [{ type: 'tool.requested', key: `c${i}`, capture: 'metadata', data: {} }]);
    }
    expect(emitter.causeKeys('s1')).toBe(MAX_CAUSE_KEYS);
    expect(MAX_CAUSE_KEYS).toBeLessThanOrEqual(256);
  });
});
