/** GET /api/agents: what is installed here (the installer host's PATH), how to get what is missing, overrides. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from './agents-harness';

type Json = Record<string, unknown>;
let d: AgentsDaemon | null = null;
const dirs: string[] = [];
afterEach(async () => {
  if (d) {
    await d.close();
    removeAgentsDir(d.dataDir);
  }
  d = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/agents', () => {
  it('shows missing agents with how to get them, finds a CLI on the host PATH, and marks overrides', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'aep-agents-bin-'));
    dirs.push(bin);
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'qwen'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'qwen'), 0o755);
    d = await startAgentsDaemon({}, undefined, { home: bin, path: bin, processEnv: { PATH: bin }, runtime: { path: process.execPath, electron: false } });
    const list = (await d.api<Json[]>('GET', '/api/agents')).json;
    const by = Object.fromEntries(list.map((a) => [a.id as string, a]));
    expect(Object.keys(by)).toEqual(['claude-code', 'codex', 'qwen-code', 'gemini-cli']);
    expect(by['codex']).toMatchObject({ installed: false, command: null, cliPath: null, howToGet: 'npm install -g @openai/codex', protocol: 'codex-app-server' });
    expect(by['gemini-cli']).toMatchObject({ installed: false, howToGet: 'npm install -g @google/gemini-cli' });
    expect(by['qwen-code']).toMatchObject({ installed: true, command: [join(bin, 'qwen'), '--acp'], cliPath: join(bin, 'qwen'), overridden: false });
    // The bridge is fetched at the first launch: launchable, not fetched yet.
    expect(by['claude-code']).toMatchObject({ installed: true, command: null, bridge: { package: '@agentclientprotocol/claude-agent-acp', version: '0.101.0', state: 'absent' } });
    d.daemon.context.settings.set({ 'agents.codex.command': ['/opt/codex/bin/codex', 'app-server'] });
    const codex = (await d.api<Json[]>('GET', '/api/agents')).json.find((a) => a.id === 'codex');
    expect(codex).toMatchObject({ installed: true, overridden: true, command: ['/opt/codex/bin/codex', 'app-server'] });
    // A missing agent cannot be launched: 409 with how to get it.
    const refused = await d.api<Json>('POST', '/api/launch', { agent: 'gemini-cli', cwd: bin });
    expect(refused.status).toBe(409);
    expect(String(refused.json.detail)).toMatch(/npm install -g @google\/gemini-cli/);
    // Settings refuse a command that is not an argv.
    expect((await d.api('PATCH', '/api/settings', { 'agents.codex.command': 'codex app-server' })).status).toBe(400);
  });
});
