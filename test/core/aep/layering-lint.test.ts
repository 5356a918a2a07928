/**
 * The core layering rules of eslint.config.js (docs/ARCHITECTURE.md, Layout), checked on sample
 * imports: each folder may import what the table allows and nothing above it.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const cwd = fileURLToPath(new URL('../../..', import.meta.url));
const eslint = new ESLint({ cwd });

async function restricted(file: string, from: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from '${from}';\nexport const y = x;\n`, {
    filePath: `${cwd}/${file}`,
  });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('core layering', () => {
  const cases: [file: string, from: string, allowed: boolean][] = [
    ['main/core/aep/sample.ts', '../store/event-store', false],
    ['main/core/aep/sample.ts', '../relay/relay', false],
    ['main/core/aep/sample.ts', '../../../common/steering', true],
    ['main/core/store/sample.ts', '../aep/ulid', true],
    ['main/core/store/sample.ts', '../relay/relay', false],
    ['main/core/store/sample.ts', '../hooks/hook-service', false],
    ['main/core/relay/sample.ts', '../store/event-store', true],
    ['main/core/relay/sample.ts', '../server/route-table', true],
    ['main/core/relay/sample.ts', '../hooks/hook-service', false],
    ['main/core/relay/sample.ts', '../steering/kill-switch', false],
    ['main/core/relay/sample.ts', '../api/index', false],
    ['main/core/relay/sample.ts', '../installer/index', false],
    ['main/core/server/sample.ts', '../aep/bounded-json', true],
    ['main/core/server/sample.ts', '../hooks/hook-service', false],
    ['main/core/server/sample.ts', '../steering/kill-switch', false],
    ['main/core/installer/sample.ts', '../relay/relay', false],
    ['main/core/installer/vendors/sample.ts', '../../hooks/vendors', false],
    ['main/core/installer/sample.ts', '../../../common/vendors', true],
    ['main/core/hooks/sample.ts', '../relay/relay', true],
    ['main/core/agents/sample.ts', '../steering/kill-switch', true],
  ];
  for (const [file, from, allowed] of cases) {
    it(`${file.replace('main/core/', '')} ${allowed ? 'may' : 'may not'} import ${from}`, async () => {
      const messages = await restricted(file, from);
      if (allowed) expect(messages).toEqual([]);
      else expect(messages).toEqual([expect.stringContaining('layering: docs/ARCHITECTURE.md')]);
    });
  }
});
