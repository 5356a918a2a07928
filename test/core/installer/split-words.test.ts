import { describe, expect, it } from 'vitest';
import { splitWords } from '../../../main/core/installer/split-words';

describe('splitWords', () => {
  it('splits like a shell for quotes and backslashes', () => {
    expect(splitWords(`env AEP_INSTRUCT=1 '/my data/bin/aep-companion-hook' hermes`)).toEqual([
      'env',
      'AEP_INSTRUCT=1',
      '/my data/bin/aep-companion-hook',
      'hermes',
    ]);
    expect(splitWords(`a "b \\"c\\"" d\\ e ''`)).toEqual(['a', 'b "c"', 'd e', '']);
  });
});
