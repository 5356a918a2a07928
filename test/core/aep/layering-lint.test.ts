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
    ['main/core/aep/sample.ts', '../vendors/index', false],
    ['main/core/aep/sample.ts', '../../../common/steering', true],
    ['main/core/store/sample.ts', '../aep/ulid', true],
    ['main/core/store/sample.ts', '../relay/relay', false],
    ['main/core/store/sample.ts', '../hooks/hook-service', false],
    ['main/core/store/sample.ts', '../launched/agents-host', false],
    ['main/core/store/sample.ts', '../../../common/input-lifecycle', true],
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
    // The installer derives the hook shim's tables from the vendor tables and runs each vendor's installer.
    ['main/core/installer/sample.ts', '../vendors', true],
    ['main/core/installer/sample.ts', '../vendors/installers', true],
    ['main/core/installer/sample.ts', '../hooks/hook-service', false],
    ['main/core/installer/sample.ts', '../steering/kill-switch', false],
    ['main/core/installer/sample.ts', '../../../common/vendors', true],
    // vendors: the pure hook mappings import aep alone; each other part what it needs.
    ['main/core/vendors/sample.ts', '../steering/kill-switch', false],
    ['main/core/vendors/sample.ts', '../store/event-store', false],
    ['main/core/vendors/sample.ts', '../aep/redact', true],
    ['main/core/vendors/codex/hooks.ts', '../../store/event-store', false],
    ['main/core/vendors/codex/hooks.ts', '../../installer/hook-target', false],
    ['main/core/vendors/codex/hooks.ts', '../types', true],
    ['main/core/vendors/codex/install.ts', '../../installer/hook-target', true],
    ['main/core/vendors/codex/install.ts', '../../relay/relay', false],
    ['main/core/vendors/codex/app-server-driver.ts', '../../launched/driver', true],
    ['main/core/vendors/codex/app-server-driver.ts', '../../hooks/hook-service', false],
    ['main/core/vendors/cline/hub/sample.ts', '../../../steering/vendor-emitter', true],
    ['main/core/vendors/cline/hub/sample.ts', '../../../hooks/hook-service', false],
    ['main/core/vendors/cline/hub/sample.ts', '../../../steering/control-acks', true],
    ['main/core/vendors/cline/hub/sample.ts', '../../../launched/agents-host', false],
    ['main/core/vendors/openhands/sample.ts', '../../launched/agents-host', false],
    ['main/core/vendors/openhands/sample.ts', '../../steering/control-acks', true],
    // the steering core sits below the two transports, which never import each other.
    ['main/core/steering/sample.ts', '../vendors/types', true],
    ['main/core/steering/sample.ts', '../sessions/registry', true],
    ['main/core/sessions/sample.ts', '../store/session-registry-repo', true],
    ['main/core/sessions/sample.ts', '../steering/kill-switch', false],
    ['main/core/sessions/sample.ts', '../hooks/hook-service', false],
    ['main/core/transcripts/sample.ts', '../hooks/hook-service', false],
    ['main/core/transcripts/sample.ts', '../steering/vendor-emitter', true],
    ['main/core/steering/sample.ts', '../store/steering-repo', true],
    ['main/core/steering/sample.ts', '../hooks/hook-service', false],
    ['main/core/steering/sample.ts', '../launched/agents-host', false],
    ['main/core/steering/sample.ts', '../api/index', true],
    ['main/core/hooks/sample.ts', '../relay/relay', true],
    ['main/core/hooks/sample.ts', '../steering/kill-switch', true],
    ['main/core/hooks/sample.ts', '../launched/agents-host', false],
    ['main/core/hooks/sample.ts', '../daemon', false],
    ['main/core/launched/sample.ts', '../hooks/hook-service', false],
    ['main/core/launched/steer/sample.ts', '../../hooks/session-tracker', false],
    ['main/core/launched/steer/sample.ts', '../../steering/instruction-queue', true],
    ['main/core/launched/sample.ts', '../installer/cli-probe', true],
    ['main/core/launched/sample.ts', '../vendors/codex/app-server-driver', true],
    // /api handlers live beside the feature that registers them.
    ['main/core/launched/sample.ts', '../api/index', true],
    ['main/core/api/sample.ts', '../launched/agents-host', false],
    ['main/core/api/sample.ts', '../store/sessions-repo', true],
  ];
  for (const [file, from, allowed] of cases) {
    it(`${file.replace('main/core/', '')} ${allowed ? 'may' : 'may not'} import ${from}`, async () => {
      const messages = await restricted(file, from);
      if (allowed) expect(messages).toEqual([]);
      else expect(messages).toEqual([expect.stringContaining('layering: docs/ARCHITECTURE.md')]);
    });
  }
});
