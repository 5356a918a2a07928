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
    ['main/core/aep/sample.ts', '../agents/vendors/index', false],
    ['main/core/aep/sample.ts', '../../../common/steering', true],
    ['main/core/store/sample.ts', '../aep/ulid', true],
    ['main/core/store/sample.ts', '../relay/relay', false],
    ['main/core/store/sample.ts', '../agents/observed/hook-service', false],
    ['main/core/relay/sample.ts', '../store/event-store', true],
    ['main/core/relay/sample.ts', '../server/route-table', true],
    ['main/core/relay/sample.ts', '../agents/observed/hook-service', false],
    ['main/core/relay/sample.ts', '../agents/steering/kill-switch', false],
    ['main/core/relay/sample.ts', '../api/index', false],
    ['main/core/relay/sample.ts', '../installer/index', false],
    ['main/core/server/sample.ts', '../aep/bounded-json', true],
    ['main/core/server/sample.ts', '../agents/observed/hook-service', false],
    ['main/core/server/sample.ts', '../agents/steering/kill-switch', false],
    ['main/core/installer/sample.ts', '../relay/relay', false],
    // The installer derives the hook shim's tables from the vendor tables, and nothing else of agents.
    ['main/core/installer/sample.ts', '../agents/vendors', true],
    ['main/core/installer/vendors/sample.ts', '../../agents/vendors/index', true],
    ['main/core/installer/sample.ts', '../agents/observed/hook-service', false],
    ['main/core/installer/vendors/sample.ts', '../../agents/steering/kill-switch', false],
    ['main/core/installer/sample.ts', '../../../common/vendors', true],
    // agents: the shared layer (vendors, steering) below two transports that never import each other.
    ['main/core/agents/vendors/sample.ts', '../steering/kill-switch', false],
    ['main/core/agents/vendors/sample.ts', '../../store/event-store', false],
    ['main/core/agents/vendors/sample.ts', '../../aep/redact', true],
    ['main/core/agents/steering/sample.ts', '../vendors/types', true],
    ['main/core/agents/steering/sample.ts', '../../store/steering-repo', true],
    ['main/core/agents/steering/sample.ts', '../observed/hook-service', false],
    ['main/core/agents/steering/sample.ts', '../../agents/launched/agents-host', false],
    ['main/core/agents/steering/sample.ts', '../../api/steering-api', false],
    ['main/core/agents/observed/sample.ts', '../../relay/relay', true],
    ['main/core/agents/observed/sample.ts', '../steering/kill-switch', true],
    ['main/core/agents/observed/sample.ts', '../launched/agents-host', false],
    ['main/core/agents/observed/cline-hub/sample.ts', '../../launched/agents-host', false],
    ['main/core/agents/observed/cline-hub/sample.ts', '../../steering/control-acks', true],
    ['main/core/agents/observed/sample.ts', '../../api/sessions-api', false],
    ['main/core/agents/observed/sample.ts', '../../daemon-context', false],
    ['main/core/agents/launched/sample.ts', '../observed/hook-service', false],
    ['main/core/agents/launched/steer/sample.ts', '../../observed/session-tracker', false],
    ['main/core/agents/launched/steer/sample.ts', '../../steering/instruction-queue', true],
    ['main/core/agents/launched/sample.ts', '../../installer/cli-probe', true],
    ['main/core/agents/launched/sample.ts', '../../api/agents-api', false],
    // The module's root files (its features) compose the transports and register the /api handlers.
    ['main/core/agents/sample.ts', './observed/hook-service', true],
    ['main/core/agents/sample.ts', './launched/agents-host', true],
    ['main/core/agents/sample.ts', '../api/agents-api', true],
  ];
  for (const [file, from, allowed] of cases) {
    it(`${file.replace('main/core/', '')} ${allowed ? 'may' : 'may not'} import ${from}`, async () => {
      const messages = await restricted(file, from);
      if (allowed) expect(messages).toEqual([]);
      else expect(messages).toEqual([expect.stringContaining('layering: docs/ARCHITECTURE.md')]);
    });
  }
});
