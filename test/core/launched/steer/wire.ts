/**
 * Replays the recorded ACP / app-server wire files (test/fixtures/acp-wire, copied from the
 * research recordings) into the steer classifier: each client `session/prompt` becomes a
 * `prompt-sent` (the first of a session) or a `steer-sent` (one written while another is
 * outstanding), `session/cancel` a `cancel-sent`, each response a `settled` / `rejected`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  INITIAL,
  reduce,
  type ClassifierState,
  type Effect,
  type WireObservation,
} from '../../../../main/core/launched/steer/classifier';
import { readUsage } from '../../../../main/core/launched/steer/usage';

export const WIRE_DIR = fileURLToPath(new URL('../../../fixtures/acp-wire/', import.meta.url));

export interface WireLine {
  readonly t: number;
  readonly dir: 'client->agent' | 'agent->client';
  readonly msg: Record<string, unknown>;
}

export interface WireFile {
  readonly fixture: string;
  readonly wire: readonly WireLine[];
  readonly observed: Record<string, unknown>;
  readonly modelRequests: readonly unknown[];
}

export const wireFiles = (): string[] =>
  readdirSync(WIRE_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''))
    .sort();

export const loadWire = (name: string): WireFile =>
  JSON.parse(readFileSync(`${WIRE_DIR}${name}.json`, 'utf8')) as WireFile;

/** The agent's `initialize` result (the answer to request id 1). */
export function initializeResult(file: WireFile): unknown {
  const answer = file.wire.find(
    (l) => l.dir === 'agent->client' && l.msg['id'] === 1 && 'result' in l.msg,
  );
  return answer?.msg['result'];
}

/** What the replay produced. */
export interface Replay {
  readonly observations: WireObservation[];
  readonly effects: Effect[];
  readonly state: ClassifierState;
  /** rpc id → the prompt text the client sent. */
  readonly texts: Map<string, string>;
}

const promptText = (msg: Record<string, unknown>): string => {
  const params = msg['params'] as { prompt?: { type: string; text?: string }[] } | undefined;
  return (params?.prompt ?? []).map((p) => p.text ?? '').join('');
};

/** Replays one ACP wire file through the classifier. `steerIds` names the rpc ids to treat as operator steers. */
export function replayAcp(file: WireFile): Replay {
  const outstanding = new Set<string>();
  const prompts = new Set<string>();
  const texts = new Map<string, string>();
  const observations: WireObservation[] = [];
  for (const line of file.wire) {
    const { msg } = line;
    const id = msg['id'] === undefined ? undefined : String(msg['id']);
    if (line.dir === 'client->agent' && msg['method'] === 'session/prompt' && id !== undefined) {
      prompts.add(id);
      texts.set(id, promptText(msg));
      observations.push(
        outstanding.size === 0
          ? { kind: 'prompt-sent', rpc: id, run: `run-${id}` }
          : { kind: 'steer-sent', rpc: id, commandId: `cmd-${id}`, ownRun: `run-${id}` },
      );
      outstanding.add(id);
    } else if (line.dir === 'client->agent' && msg['method'] === 'session/cancel') {
      observations.push({ kind: 'cancel-sent' });
    } else if (
      line.dir === 'agent->client' &&
      id !== undefined &&
      prompts.has(id) &&
      !('method' in msg)
    ) {
      outstanding.delete(id);
      if ('result' in msg) {
        const result = msg['result'] as Record<string, unknown>;
        observations.push({
          kind: 'settled',
          rpc: id,
          stopReason: String(result['stopReason']),
          usage: readUsage(result['usage']),
        });
      } else {
        const error = msg['error'] as { code: number; message: string };
        observations.push({ kind: 'rejected', rpc: id, code: error.code, message: error.message });
      }
    }
  }
  let state = INITIAL;
  const effects: Effect[] = [];
  for (const obs of observations) {
    const step = reduce(state, obs);
    state = step.state;
    effects.push(...step.effects);
  }
  return { observations, effects, state, texts };
}

/** The outcome effects of a replay, as `[commandId, outcome]`. */
export const outcomes = (replay: Replay): [string, string][] =>
  replay.effects.flatMap((e) =>
    e.kind === 'outcome' ? [[e.commandId, e.outcome] as [string, string]] : [],
  );

/** The run terminal effects, in order. */
export const terminals = (replay: Replay): string[] =>
  replay.effects.flatMap((e) =>
    e.kind === 'run-finished' || e.kind === 'run-cancelled' || e.kind === 'run-failed'
      ? [`${e.kind}:${e.run}`]
      : [],
  );
