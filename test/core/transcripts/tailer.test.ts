/**
 * The transcript tailer against real files in a temp home: incremental reads from the last
 * offset, partial lines, rotation, truncation, deletion, the bounds, refused paths (outside the
 * vendor directories, relative, through a symlink) audited once, the setting turning it off, and
 * a failed delivery read again.
 */
import { appendFile, mkdir, mkdtemp, rename, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VendorId } from '../../../common/vendors';
import { createLogger } from '../../../main/core/logger';
import type { TranscriptFact } from '../../../main/core/transcripts/facts';
import { memoryPositions, TranscriptTailer, type PositionStore, type TailerLimits } from '../../../main/core/transcripts/tailer';
import { transcriptFormat } from '../../../main/core/transcripts/transcript-feed';

const SESSION = 'sess-1';

const assistantLine = (id: string, text: string): string =>
  `${JSON.stringify({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }], usage: { input_tokens: 10, output_tokens: 3 } } })}\n`;

interface Rig {
  readonly home: string;
  readonly dir: string;
  readonly file: string;
  readonly delivered: TranscriptFact[];
  readonly runs: (string | null)[];
  readonly refusals: { session: string; path: string; reason: string }[];
  enabled: boolean;
  failNext: boolean;
  tailer(limits?: Partial<TailerLimits>, positions?: PositionStore): TranscriptTailer;
  observe(t: TranscriptTailer, path?: unknown): Promise<void>;
  replies(): string[];
}

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'aep-tail-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function rig(): Promise<Rig> {
  const dir = join(home, '.claude', 'projects', '-work');
  await mkdir(dir, { recursive: true });
  const r: Rig = {
    home,
    dir,
    file: join(dir, `${SESSION}.jsonl`),
    delivered: [],
    runs: [],
    refusals: [],
    enabled: true,
    failNext: false,
    tailer: (limits, positions) =>
      new TranscriptTailer({
        home,
        format: (v: VendorId) => transcriptFormat(v),
        enabled: () => r.enabled,
        deliver: async (_v, _s, facts, run) => {
          r.runs.push(run);
          if (r.failNext) {
            r.failNext = false;
            throw new Error('store refused');
          }
          r.delivered.push(...facts);
        },
        refused: (_v, session, path, reason) => r.refusals.push({ session, path, reason }),
        logger: createLogger('test'),
        // The settle read is off unless a test asks for it.
        limits: { settleMs: 0, ...limits },
        positions,
      }),
    observe: async (t, path = r.file) => {
      t.observe('claude-code', SESSION, path);
      await t.idle();
    },
    replies: () => r.delivered.flatMap((f) => (f.kind === 'reply' ? [f.text] : [])),
  };
  return r;
}

describe('the transcript tailer', () => {
  it('reads on from the last offset, and a partial last line once it is complete', async () => {
    const r = await rig();
    const t = r.tailer();
    await writeFile(r.file, assistantLine('m1', 'first'));
    await r.observe(t);
    expect(r.replies()).toEqual(['first']);
    const second = assistantLine('m2', 'second');
    await appendFile(r.file, second.slice(0, 20));
    await r.observe(t);
    expect(r.replies()).toEqual(['first']);
    await appendFile(r.file, second.slice(20));
    await r.observe(t);
    expect(r.replies()).toEqual(['first', 'second']);
    await r.observe(t);
    expect(r.replies()).toEqual(['first', 'second']);
  });

  it('reads a replaced (rotated) or truncated file from its start, and forgets a deleted one', async () => {
    const r = await rig();
    const t = r.tailer();
    await writeFile(r.file, assistantLine('m1', 'one') + assistantLine('m2', 'two'));
    await r.observe(t);
    const other = join(r.dir, 'next.tmp');
    await writeFile(other, assistantLine('m3', 'rotated'));
    await rename(other, r.file);
    await r.observe(t);
    expect(r.replies()).toEqual(['one', 'two', 'rotated']);
    await truncate(r.file, 0);
    await appendFile(r.file, assistantLine('m4', 'after truncation'));
    await r.observe(t);
    expect(r.replies()).toEqual(['one', 'two', 'rotated', 'after truncation']);
    await rm(r.file);
    await r.observe(t);
    await writeFile(r.file, assistantLine('m5', 'recreated'));
    await r.observe(t);
    expect(r.replies()).toEqual(['one', 'two', 'rotated', 'after truncation', 'recreated']);
    expect(r.refusals).toEqual([]);
  });

  it('skips a line over the bound whole, reads at most the bound per pass, and a long file from its last window', async () => {
    const r = await rig();
    const t = r.tailer({ maxLineBytes: 200, maxReadBytes: 400 });
    const long = assistantLine('big', 'x'.repeat(1_000));
    await writeFile(r.file, long + assistantLine('m1', 'after the long line'));
    await r.observe(t);
    // One pass ends at the read bound; the next hook reads on.
    for (let i = 0; i < 5; i += 1) await r.observe(t);
    expect(r.replies()).toEqual(['after the long line']);

    const session2 = join(r.dir, 'old.jsonl');
    const lines = Array.from({ length: 50 }, (_, i) => assistantLine(`o${i}`, `old ${i}`)).join('');
    await writeFile(session2, lines);
    const t2 = r.tailer({ firstWindowBytes: 500 });
    t2.observe('claude-code', 'old', session2);
    await t2.idle();
    const replies = r.replies().slice(1);
    expect(replies.length).toBeGreaterThan(0);
    expect(replies.length).toBeLessThan(10);
    expect(replies.at(-1)).toBe('old 49');
    expect(replies).not.toContain('old 0');
  });

  it('refuses and audits once any path outside the vendor directories, relative paths and symlink escapes', async () => {
    const r = await rig();
    const t = r.tailer();
    const outside = join(home, 'secrets.jsonl');
    await writeFile(outside, assistantLine('s', 'secret'));
    await r.observe(t, outside);
    await r.observe(t, outside);
    await r.observe(t, 'relative/x.jsonl');
    await r.observe(t, join(r.dir, '..', '..', '..', 'secrets.jsonl'));
    await r.observe(t, 42);
    const link = join(r.dir, 'escape.jsonl');
    await symlink(outside, link);
    await r.observe(t, link);
    expect(r.replies()).toEqual([]);
    expect(r.refusals.map((x) => x.reason)).toEqual([
      'outside the vendor transcript directories',
      'not an absolute path',
      'not a path',
      'resolves outside the vendor transcript directories',
    ]);
    expect(r.refusals[3].path).toBe(link);
  });

  it('reads nothing while the setting is off, and reads on once it is on', async () => {
    const r = await rig();
    const t = r.tailer();
    r.enabled = false;
    await writeFile(r.file, assistantLine('m1', 'hidden while off'));
    await r.observe(t);
    expect(r.delivered).toEqual([]);
    r.enabled = true;
    await r.observe(t);
    expect(r.replies()).toEqual(['hidden while off']);
  });

  it('keeps the offset until the facts are delivered, and resumes from a kept position after a restart', async () => {
    const r = await rig();
    const positions = memoryPositions();
    const t = r.tailer({}, positions);
    await writeFile(r.file, assistantLine('m1', 'once'));
    r.failNext = true;
    await r.observe(t);
    expect(r.delivered).toEqual([]);
    await r.observe(t);
    expect(r.replies()).toEqual(['once']);
    const restarted = r.tailer({}, positions);
    await appendFile(r.file, assistantLine('m2', 'after restart'));
    await r.observe(restarted);
    expect(r.replies()).toEqual(['once', 'after restart']);
  });

  it('reads one session at a time: calls during a read are coalesced into one more pass', async () => {
    const r = await rig();
    const t = r.tailer();
    await writeFile(r.file, assistantLine('m1', 'a'));
    t.observe('claude-code', SESSION, r.file);
    await appendFile(r.file, assistantLine('m2', 'b'));
    t.observe('claude-code', SESSION, r.file);
    t.observe('claude-code', SESSION, r.file);
    await t.idle();
    expect(r.replies()).toEqual(['a', 'b']);
  });

  it('delivers in the run the asking hook saw open', async () => {
    const r = await rig();
    const t = r.tailer();
    await writeFile(r.file, assistantLine('m1', 'in r1'));
    t.observe('claude-code', SESSION, r.file, 'r1');
    await t.idle();
    await appendFile(r.file, assistantLine('m2', 'no run'));
    t.observe('claude-code', SESSION, r.file);
    await t.idle();
    expect(r.runs).toEqual(['r1', null]);
  });

  it('reads the file once more a moment after a hook: the reply an agent writes after its last hook arrives too', async () => {
    const r = await rig();
    await writeFile(r.file, assistantLine('m1', 'first reply'));
    const t = r.tailer({ settleMs: 20 });
    await r.observe(t);
    expect(r.replies()).toEqual(['first reply']);
    // Written after the last hook's read; no hook follows.
    await appendFile(r.file, assistantLine('m2', 'the last reply'));
    while (r.replies().length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(r.replies()).toEqual(['first reply', 'the last reply']);
    await t.close();
  });
});
