// `aep-companion prompt <session> "text" --delivery now --wait` against a Cline session: the CLI's
// send path (roster lookup, send_input, ack) waits for the hub-driven `x.cline.input.settled`
// (cause-linked) and prints the settled word. Real daemon, recorded hook payloads, stub hub
// replaying the recorded pending-prompt frames.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clineHubDiscoveryPath } from '../../../../common/cline';
import { startDaemon, type DaemonHandle } from '../../../../main/core/daemon';
import { sendSessionCommand } from '../../../../main/cli/commands/session-command';
import { createHooksFeature } from '../../../../main/core/hooks/hooks-feature';
import { Consumer, postHook } from '../../hooks/hooks-harness';
import { recordedEvents, startStubHub, type StubHub } from './stub-hub';

const S1 = '1796114557302_k1lk8'; // frames-s1: a plain `cline "prompt"` run
const TASK_START = 'h3-TaskStart-1796114260761-12268.json';
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function setup(): Promise<{ daemon: DaemonHandle; hub: StubHub; c: Consumer }> {
  const root = await mkdtemp(join(tmpdir(), 'aep-cline-wait-'));
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  const hub = await startStubHub();
  await hub.writeDiscovery(clineHubDiscoveryPath(home));
  hub.answer = (cmd) =>
    cmd.command === 'session.get'
      ? { ok: true, payload: { session: { sessionId: cmd.payload.sessionId, interactive: false } } }
      : { ok: true, payload: {} };
  const daemon = await startDaemon({
    dataDir: join(root, 'data'),
    port: 0,
    installerHost: { home },
    baseFeatures: [createHooksFeature({ sweepEveryMs: 0 })],
  });
  await fetch(`${daemon.url}/api/steering`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${daemon.tokens.operator}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ enabled: true, surface: 'console' }),
  });
  const c = await Consumer.open(daemon.url, daemon.tokens.operator);
  cleanup = async () => {
    c.close();
    await daemon.close();
    await hub.close();
    await rm(root, { recursive: true, force: true });
  };
  const p = JSON.parse(
    await readFile(
      new URL(`../../../fixtures/cline/hook-payloads/${TASK_START}`, import.meta.url),
      'utf8',
    ),
  ) as Record<string, unknown>;
  await postHook(
    daemon.url,
    daemon.tokens.hook,
    'cline',
    { ...p, sessionContext: { rootSessionId: S1 } },
    { instruct: true },
  );
  for (let i = 0; i < 300; i++) {
    const entry = (await c.roster()).find((e) => e.session === S1);
    if (
      ((entry?.control as { accepts?: unknown[] } | undefined)?.accepts ?? []).includes(
        'x.cline.control.send_input',
      )
    )
      return { daemon, hub, c };
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the Cline session never declared x.cline.control.send_input');
}

describe('prompt --wait on a Cline session', () => {
  it('settles on x.cline.input.settled: a steer prints "steered" as its last line and exits 0', async () => {
    const { daemon, hub } = await setup();
    const lines: string[] = [];
    const pending = sendSessionCommand({
      url: daemon.url,
      token: daemon.tokens.operator,
      session: S1,
      verb: (accepts) =>
        accepts.find((a) => /^x\.[a-z0-9-]+\.control\.send_input$/.test(a)) ?? null,
      data: { text: 'STEER-MARKER-1 please also say banana', delivery: 'now' },
      capture: 'redacted',
      wait: 'settled',
      say: (line) => lines.push(line),
    });
    // The hub answers the steer; then its recorded pending-prompt frames say it was submitted.
    for (let i = 0; i < 300 && !hub.commands.some((x) => x.command === 'session.send_input'); i++)
      await new Promise((r) => setTimeout(r, 10));
    hub.publish(
      recordedEvents('frames-s1.jsonl').filter(
        (e) => e.sessionId === S1 && e.event.startsWith('session.pending_prompt'),
      ),
    );
    const outcome = await pending;
    expect(outcome.code).toBe(0);
    expect(outcome.message.split('\n').at(-1)).toBe('steered');
    expect(lines.some((l) => l.startsWith('accepted'))).toBe(true);
  });
});
