/**
 * The session registry's merge and ownership as properties: whatever the arrival order of two
 * sources' facts, however often each is repeated, a tool call is one request and one settlement,
 * the owner's own reports are never lost, and an enriching source never adds a second lifecycle,
 * turn or card. Ownership and the sources seen survive restarts as written; the relay never holds
 * a session for two of the companion's adapters when one owns it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { factKey, ownerOnly, SessionRegistry, speaksWithAgent, type OwnerPort, type SourceKind } from '../../../main/core/sessions';
import { openDb } from '../../../main/core/store';
import { SessionRegistryRepo } from '../../../main/core/store/session-registry-repo';
import { ClaimRegistry, type Claimant } from '../../../main/core/relay/claims';
import type { MappedEvent } from '../../../main/core/vendors/types';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDb(): { file: string; db: Database } {
  const dir = mkdtempSync(join(tmpdir(), 'aep-registry-'));
  dirs.push(dir);
  const file = join(dir, 'companion.db');
  return { file, db: openDb(file) };
}

const registryOn = (db: Database): SessionRegistry => new SessionRegistry({ repo: new SessionRegistryRepo(db), clock: () => 1_000 });

type From = 'owner' | 'hooks';
interface Fact {
  readonly from: From;
  readonly type: string;
  readonly callId: string | null;
  readonly n: number;
}

const TYPES = ['tool.requested', 'tool.completed', 'tool.failed', 'session.started', 'session.ended', 'run.started', 'run.finished', 'attention.requested', 'delegation.subagent.started', 'session.compacted', 'x.claude-code.notification'];

const factArb = fc.record({
  from: fc.constantFrom<From>('owner', 'hooks'),
  type: fc.constantFrom(...TYPES),
  callId: fc.option(fc.constantFrom('toolu_a', 'toolu_b', 'toolu_c'), { nil: null }),
});

const mappedOf = (f: Fact): MappedEvent => ({
  type: f.type,
  subject: 'Bash',
  run: f.from === 'hooks' ? 'hook-run' : 'owner-run',
  capture: 'full',
  data: { n: f.n, ...(f.callId !== null ? { tool: { name: 'Bash', call_id: f.callId } } : {}) },
});

describe('the merge of two sources of one session', () => {
  it('whatever the order and repetition: one event per tool fact, the owner keeps its reports, the hooks add only what the owner does not report', async () => {
    const { db } = tempDb();
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(factArb, { maxLength: 40 }), async (raw) => {
        const facts: Fact[] = raw.map((f, n) => ({ ...f, n }));
        const registry = registryOn(db);
        const session = `s-${round++}`;
        const out: MappedEvent[] = [];
        const port: OwnerPort = { kind: 'launched', agent: 'claude-code', source: 'aep://localhost/agent/claude-code/launched/x', currentRun: () => 'owner-run', emit: async (events) => void out.push(...events) };
        registry.sighted({ session, kind: 'hooks', agent: 'claude-code', source: 'aep://localhost/agent/claude-code/session/x' });
        registry.own(session, port);
        for (const f of facts) {
          const e = mappedOf(f);
          if (f.from === 'owner') {
            if (registry.admitOwn(session, e)) out.push(e);
          } else expect(await registry.enrich(session, [e])).toBe(true);
        }
        // Each keyed fact once, from whichever source reported it first.
        const keyed = new Map<string, Fact>();
        for (const f of facts) {
          const key = factKey(f.type, mappedOf(f).data);
          if (key !== null && !keyed.has(key)) keyed.set(key, f);
        }
        const outKeys = out.map((e) => factKey(e.type, e.data)).filter((k): k is string => k !== null);
        expect(outKeys.sort()).toEqual([...keyed.keys()].sort());
        for (const [key, first] of keyed) expect(out.find((e) => factKey(e.type, e.data) === key)?.data?.['n']).toBe(first.n);
        // Unkeyed: every owner report; an enriching report only outside the owner's families.
        const unkeyed = facts.filter((f) => factKey(f.type, mappedOf(f).data) === null);
        const expected = unkeyed.filter((f) => f.from === 'owner' || !ownerOnly(f.type)).map((f) => f.n);
        expect(out.filter((e) => factKey(e.type, e.data) === null).map((e) => e.data?.['n'])).toEqual(expected);
        // What the hooks added joined the owner's run; their tool events are named by the call id.
        for (const e of out) {
          expect(e.run).toBe('owner-run');
          const callId = (e.data?.['tool'] as { call_id?: string } | undefined)?.call_id;
          if (e.type.startsWith('tool.') && facts[e.data?.['n'] as number].from === 'hooks') expect(e.subject).toBe(callId);
        }
      }),
      { numRuns: 300 },
    );
    db.close();
  });

  it('an owner on the source\'s own emitter that reports no turns (the Cline hub): the hooks\' facts keep their runs and subjects, only its own families are dropped', async () => {
    const { db } = tempDb();
    const hubFacts = (type: string): boolean => type.startsWith('attention.');
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(factArb, { maxLength: 40 }), async (raw) => {
        const facts: Fact[] = raw.map((f, n) => ({ ...f, from: 'hooks', n }));
        const registry = registryOn(db);
        const session = `hub-${round++}`;
        const out: MappedEvent[] = [];
        const port: OwnerPort = { kind: 'hub', agent: 'cline', source: 'aep://localhost/agent/cline/session/x', currentRun: () => 'hub-run', emit: async (events) => void out.push(...events), reports: hubFacts };
        registry.own(session, port);
        for (const f of facts) expect(await registry.enrich(session, [mappedOf(f)])).toBe(true);
        const seen = new Set<string>();
        const expected = facts.filter((f) => {
          const key = factKey(f.type, mappedOf(f).data);
          if (key === null) return !hubFacts(f.type);
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        });
        expect(out).toEqual(expected.map(mappedOf));
      }),
      { numRuns: 200 },
    );
    db.close();
  });

  it('an owner that speaks with the agent (ACP): a transcript\'s replies, usage, interrupts and errors are dropped, its titles and other facts join the owner\'s run', async () => {
    const { db } = tempDb();
    const registry = registryOn(db);
    const out: MappedEvent[] = [];
    const port: OwnerPort = { kind: 'launched', agent: 'claude-code', source: 'aep://localhost/agent/claude-code/launched/t', currentRun: () => 'owner-run', emit: async (events) => void out.push(...events), reports: speaksWithAgent };
    registry.own('t', port);
    const transcriptTypes = ['x.claude-code.message.replied', 'x.claude-code.usage.reported', 'x.claude-code.run.interrupted', 'error.raised', 'x.claude-code.session.titled', 'run.started', 'x.qwen-code.message.replied'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...transcriptTypes), { maxLength: 20 }), async (types) => {
        out.length = 0;
        expect(await registry.enrich('t', types.map((type) => ({ type, run: 'hook-run', capture: 'full', data: {} })))).toBe(true);
        expect(out.map((e) => e.type)).toEqual(types.filter((t) => t === 'x.claude-code.session.titled'));
        for (const e of out) expect(e.run).toBe('owner-run');
      }),
    );
    db.close();
  });

  it('without a live owner nothing is merged: the source emits on its own', async () => {
    const { db } = tempDb();
    const registry = registryOn(db);
    expect(await registry.enrich('lonely', [mappedOf({ from: 'hooks', type: 'tool.requested', callId: 'toolu_a', n: 0 })])).toBe(false);
    expect(registry.admitOwn('lonely', mappedOf({ from: 'owner', type: 'tool.requested', callId: 'toolu_a', n: 1 }))).toBe(true);
    db.close();
  });
});

type Op = { op: 'sighted'; kind: SourceKind } | { op: 'own'; kind: 'launched' | 'hub' | 'server' } | { op: 'disown' } | { op: 'restart' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('sighted' as const), kind: fc.constantFrom<SourceKind>('launched', 'hooks', 'hub', 'server', 'transcript') }),
  fc.record({ op: fc.constant('own' as const), kind: fc.constantFrom<'launched' | 'hub' | 'server'>('launched', 'hub', 'server') }),
  fc.constant({ op: 'disown' as const }),
  fc.constant({ op: 'restart' as const }),
);

describe('ownership across restarts', () => {
  it('the stored owner is the last to take the session, every source of an owned session is stored, and a restart keeps them but no live owner', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 25 }), (ops) => {
        const { file, db: first } = tempDb();
        let db = first;
        let registry = registryOn(db);
        const session = 'sess-1';
        let storedOwner: string | null = null;
        // Sightings are written once the session has an owner; before that only this process knows them.
        const stored = new Set<string>();
        let inMemory = new Set<string>();
        let live: OwnerPort | undefined;
        for (const o of ops) {
          if (o.op === 'sighted') {
            registry.sighted({ session, kind: o.kind, agent: 'claude-code', source: `aep://localhost/${o.kind}` });
            inMemory.add(o.kind);
            if (live !== undefined) stored.add(o.kind);
          } else if (o.op === 'own') {
            live = { kind: o.kind, agent: 'claude-code', source: `aep://localhost/${o.kind}`, currentRun: () => null, emit: async () => undefined };
            registry.own(session, live);
            storedOwner = o.kind;
            for (const k of inMemory) stored.add(k);
            stored.add(o.kind);
            inMemory.add(o.kind);
          } else if (o.op === 'disown') {
            if (live !== undefined) registry.disown(session, live);
            live = undefined;
          } else {
            // A restart as after kill -9: the connection goes without any goodbye, a new process reads the file.
            db.close();
            db = openDb(file);
            registry = registryOn(db);
            live = undefined;
            inMemory = new Set();
          }
          expect(registry.storedOwner(session)?.kind ?? null).toBe(storedOwner);
          expect(new Set(registry.sources(session).map((r) => r.kind))).toEqual(new Set([...stored, ...inMemory]));
          expect(new Set(db.prepare('SELECT kind FROM session_registry WHERE session = ?').all(session).map((r) => (r as { kind: string }).kind))).toEqual(stored);
          expect(registry.sources(session).filter((r) => r.owner).length).toBe(storedOwner === null ? 0 : 1);
          expect(registry.owner(session)).toBe(live);
          // Another source's owner, live or by the record with none live, keeps the hooks from claiming.
          const ownerSource = live?.source ?? (storedOwner === null ? null : `aep://localhost/${storedOwner}`);
          for (const kind of ['hooks', 'hub'] as const) expect(registry.ownedElsewhere(session, `aep://localhost/${kind}`)).toBe(ownerSource !== null && ownerSource !== `aep://localhost/${kind}`);
        }
        db.close();
      }),
      { numRuns: 60 },
    );
  });
});

/** A claimant of the companion's own, owning or enriching. */
const adapter = (name: string, owns: boolean): Claimant => ({ internal: true, owns, agent: name, instance: name, emits: undefined, control: () => undefined, deliverCommand: () => undefined });

describe('the relay with one session seen by two of the companion adapters', () => {
  it('in any order of claims and releases, an owning adapter holding the session is its only claimant', () => {
    const owner = adapter('launched', true);
    const hooks = adapter('hooks', false);
    const step = fc.record({ who: fc.constantFrom(owner, hooks), act: fc.constantFrom('claim', 'release') });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const claims = new ClaimRegistry();
        for (const s of steps) {
          if (s.act === 'claim') claims.claim('s', s.who);
          else claims.release('s', s.who);
          const holders = claims.claimants('s');
          expect(holders.length).toBeLessThanOrEqual(1);
          if (claims.has('s', owner)) expect(holders).toEqual([owner]);
        }
      }),
    );
  });
});

describe('a launch under way', () => {
  it('holds the sources of that agent until the launch settles, or until the bound fires; other agents never wait', async () => {
    const { db } = tempDb();
    const fired: (() => void)[] = [];
    const registry = new SessionRegistry({ repo: new SessionRegistryRepo(db), clock: () => 1_000, schedule: (_ms, fire) => (fired.push(fire), () => undefined) });
    expect(registry.whenLaunched('claude-code')).toBeNull();
    const launch = registry.launch('claude-code');
    expect(registry.whenLaunched('qwen-code')).toBeNull();
    let released = false;
    const waiting = registry.whenLaunched('claude-code')?.then(() => (released = true));
    await Promise.resolve();
    expect(released).toBe(false);
    launch.settle();
    await waiting;
    expect(released).toBe(true);
    expect(registry.whenLaunched('claude-code')).toBeNull();
    // A launch that never names its session: the bound lets the source go on its own.
    registry.launch('codex');
    const bounded = registry.whenLaunched('codex');
    expect(fired).toHaveLength(2);
    fired[1]();
    await bounded;
    db.close();
  });
});
