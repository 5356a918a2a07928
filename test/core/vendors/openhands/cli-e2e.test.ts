// End to end through the command line (a child process running the CLI from source):
// `aep-companion openhands connect --url --key-file --instruct` against a running daemon, then
// `aep-companion prompt <conversation> "text" --wait` while the conversation runs: the message is
// taken by the agent at its next step and the CLI prints "steered".
import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFile, startRig, until, type Rig } from './harness';

const CLI = new URL('../../cli/run-cli.ts', import.meta.url).pathname;

function cli(args: string[]): { done: Promise<{ code: number; out: string; err: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...process.env, AEP_COMPANION_URL: '', AEP_OPERATOR_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (err += String(d)));
  return { done: new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out, err }))) };
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('aep-companion openhands connect and prompt --wait', () => {
  it('connects with a 0600 key file and steers a running conversation at its next step', async () => {
    rig = await startRig({ connect: false });
    // A key file others can read is refused.
    const loose = await keyFile(rig.root, rig.stub.key, 0o644);
    const refused = await cli(['openhands', 'connect', '--url', rig.stub.url, '--key-file', loose, '--instruct', '--data-dir', rig.dataDir]).done;
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('readable by other users');
    const key = await keyFile(rig.root, rig.stub.key);
    const connected = await cli(['openhands', 'connect', '--url', rig.stub.url, '--key-file', key, '--instruct', '--data-dir', rig.dataDir]).done;
    expect(connected.err).toBe('');
    expect(connected.code).toBe(0);
    expect(connected.out).toContain('connected');
    expect(connected.out + connected.err).not.toContain(rig.stub.key);
    // Kept like our own tokens: a 0600 file in the data directory.
    expect((await stat(join(rig.dataDir, 'openhands-key'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(rig.dataDir, 'openhands-key'), 'utf8')).trim()).toBe(rig.stub.key);

    const id = rig.stub.create('Please fix the failing test.');
    rig.stub.step(id);
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'tool.completed');
    await until(async () => JSON.stringify(await rig!.c.roster()).includes('x.openhands.control.send_input'), 'the verb declared');

    const appended = rig.stub.nextPost(/\/events$/);
    const prompt = cli(['prompt', id, 'Run only the failing test with pytest -x.', '--wait', '--data-dir', rig.dataDir]);
    await appended;
    rig.stub.step(id); // the model call in flight at the append
    const reading = rig.stub.step(id)!; // the next step: its prompt holds the message
    expect(JSON.stringify(reading.thought)).toContain('Run only the failing test with pytest -x.');
    const result = await prompt.done;
    expect(result.out.trim().split('\n').at(-1)).toBe('steered');
    expect(result.code).toBe(0);
    expect(rig.stub.conv(id).status).toBe('running');

    const status = await cli(['openhands', 'status', '--data-dir', rig.dataDir]).done;
    expect(status.out).toContain('connected');
    expect(status.out).toContain('1.43.1');
    const doctor = await cli(['doctor', '--data-dir', rig.dataDir, '--json']).done;
    const findings = JSON.parse(doctor.out) as { check: string; ok: boolean }[];
    expect(findings.filter((f) => f.check.startsWith('openhands')).map((f) => [f.check, f.ok])).toEqual([
      ['openhands reachable', true],
      ['openhands version', true],
      ['openhands key', true],
    ]);
    const gone = await cli(['openhands', 'disconnect', '--data-dir', rig.dataDir]).done;
    expect(gone.code).toBe(0);
    expect((await rig.api('GET', '/api/openhands')).body.state).toBe('disconnected');
  }, 60_000);
});
