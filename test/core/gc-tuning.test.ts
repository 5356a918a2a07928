/** The daemon's V8 flags: set at start unless AEP_PARALLEL_SCAVENGE=1 keeps V8's default. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DAEMON_V8_FLAGS, tuneGarbageCollector } from '../../main/core/gc-tuning';

describe('tuneGarbageCollector', () => {
  it('turns off the parallel scavenge', () => {
    const set: string[] = [];
    expect(tuneGarbageCollector({}, (flag) => set.push(flag))).toEqual(['--no-parallel-scavenge']);
    expect(set).toEqual([...DAEMON_V8_FLAGS]);
  });

  it('leaves V8 alone with AEP_PARALLEL_SCAVENGE=1', () => {
    const set: string[] = [];
    expect(tuneGarbageCollector({ AEP_PARALLEL_SCAVENGE: '1' }, (flag) => set.push(flag))).toEqual([]);
    expect(set).toEqual([]);
  });

  it('names flags this V8 has (a misspelt one is ignored without a word)', () => {
    const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    for (const flag of DAEMON_V8_FLAGS) expect(options).toContain(`${flag.replace(/^--no-/, '--')} (`);
  });
});
