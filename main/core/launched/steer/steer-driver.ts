/**
 * The steering driver: wraps a launched session's `AgentDriver` so that every prompt goes through
 * the outcome classifier. It negotiates the steer capability from the agent's own `initialize`
 * answer at `open`, tracks whether the foreground turn is admitted or dispatched (its request line
 * was written), sends steers with the negotiated primitive, and resolves each foreground
 * `prompt()` with the settlement that really ends its run: after a fold the early zero-usage
 * settlement is swallowed and the run ends once, with the successor's settlement and usage. A
 * deferred steer becomes its own turn: `hooks.adopt` puts it at the head of the turn controller's
 * queue, and the controller's next `prompt()` of that text returns the request already in flight
 * (nothing is written twice).
 */
import type { InputOutcome } from '../../../../common/agent-inputs';
import type { AgentProtocol } from '../../../../common/agents';
import type { AgentDriver, AgentExit, OpenedSession, TurnEnd } from '../driver';
import type { TurnPhase } from './admission';
import { NO_STEER, parseSteerCapability, type SteerCapability } from './capability';
import {
  INITIAL,
  reduce,
  type ClassifierState,
  type Effect,
  type WireObservation,
} from './classifier';
import { classifySessionSteering, classifyTurnSteer, type SteerAnswer } from './native-outcome';
import type { SteerReceipt } from './receipts';
import { readUsage } from './usage';

/** A steer's settled verdict. */
export interface SteerVerdict {
  readonly outcome: InputOutcome;
  readonly reason: string;
  /** It provably never ran: send it next as an ordinary prompt. */
  readonly requeue: boolean;
  /** The JSON-RPC id of the request that carried it, when known. */
  readonly rpcId: string | null;
  /** Codex `turn/steer` Steered: the turn the agent bound it to. */
  readonly turnId?: string;
}

/** What a driver that offers native steer primitives adds (ACP `_session/steering`, Codex `turn/steer`). */
export interface NativeSteer {
  steer(text: string): Promise<SteerAnswer>;
  /** Codex: the turn id `turn/steer` names in `expectedTurnId`, once `turn/start` answered. */
  readonly activeTurnId?: string | null;
  /** Codex: the seen-by-agent receipt of a steer accepted into `turnId` (null when none came). */
  receipt?(turnId: string, text: string): Promise<SteerReceipt | null>;
}

export interface SteerDriverHooks {
  /** A deferred steer is its own turn now: put it first so it dispatches next. */
  adopt(commandId: string): void;
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The JSON-RPC error code of a rejection that is an agent's error answer, else null. */
export function rpcCode(error: unknown): number | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && Number.isInteger(code) ? code : null;
}

const toTurnEnd = (end: TurnEnd): WireObservation & { kind: 'settled' } => ({
  kind: 'settled',
  rpc: '',
  stopReason: end.stopReason,
  usage: readUsage(end.usage ?? (end.raw as { usage?: unknown } | undefined)?.usage),
});

/** The steering driver. */
export class SteeringDriver implements AgentDriver {
  capability: SteerCapability = NO_STEER('the session is not open yet');
  hooks: SteerDriverHooks | null = null;
  onPromptWritten: ((line?: string) => void) | null = null;
  private state: ClassifierState = INITIAL;
  private n = 0;
  private readonly runs = new Map<string, Deferred<TurnEnd>>();
  /** Outstanding concurrent-prompt steers: command id → its verdict, prompt key and text. */
  private readonly verdicts = new Map<
    string,
    { deferred: Deferred<SteerVerdict>; key: string; text: string }
  >();
  private readonly adopted: { text: string; commandId: string; promise: Promise<TurnEnd> }[] = [];
  private readonly unwritten: string[] = [];
  private readonly written = new Set<string>();
  private readonly rpcIds = new Map<string, string>();
  private cancelling = false;
  /** Why the agent went away, once it did. */
  private gone: string | null = null;

  constructor(
    readonly inner: AgentDriver & Partial<NativeSteer>,
    private readonly protocol: AgentProtocol,
  ) {
    inner.onPromptWritten = (line?: string) => {
      const key = this.unwritten.shift();
      if (key !== undefined) {
        this.written.add(key);
        const id = typeof line === 'string' ? lineId(line) : null;
        if (id !== null) this.rpcIds.set(key, id);
      }
      this.onPromptWritten?.(line);
    };
    // The agent going away fails every prompt and steer in flight, like any in-flight prompt.
    void inner.exited.then((exit) => {
      this.gone = exit.reason;
      if (this.state.slots.length > 0)
        this.observe({ kind: 'connection-lost', reason: exit.reason });
    });
  }

  get pid(): number | null {
    return this.inner.pid;
  }

  get exited(): Promise<AgentExit> {
    return this.inner.exited;
  }

  /** The foreground turn as admission sees it. */
  get phase(): TurnPhase {
    const live = this.state.slots;
    if (live.length === 0 && this.adopted.length === 0) return 'idle';
    if (this.cancelling) return 'cancelling';
    const head = live.find((s) => s.commandId === null) ?? live[0];
    return head !== undefined && this.written.has(head.rpc) ? 'dispatched' : 'admitted';
  }

  async open(cwd: string, resume?: string): Promise<OpenedSession> {
    const opened = await this.inner.open(cwd, resume);
    this.capability = parseSteerCapability(this.protocol, opened.initialize);
    return opened;
  }

  /** A foreground prompt; resolves with the settlement that ends its run. */
  prompt(text: string): Promise<TurnEnd> {
    const at = this.adopted.findIndex((a) => a.text === text);
    if (at >= 0) return this.adopted.splice(at, 1)[0].promise;
    const key = `p${++this.n}`;
    const run = deferred<TurnEnd>();
    this.runs.set(key, run);
    this.unwritten.push(key);
    this.observe({ kind: 'prompt-sent', rpc: key, run: key });
    this.track(key, this.inner.prompt(text));
    return run.promise;
  }

  /** Sends a steer with the negotiated primitive; resolves with its verdict. */
  steer(commandId: string, text: string): Promise<SteerVerdict> {
    const mechanism = this.capability.mechanism;
    if (mechanism === 'concurrent-prompt') {
      const key = `p${++this.n}`;
      const verdict = deferred<SteerVerdict>();
      this.verdicts.set(commandId, { deferred: verdict, key, text });
      this.unwritten.push(key);
      this.observe({ kind: 'steer-sent', rpc: key, commandId, ownRun: key });
      this.track(key, this.inner.prompt(text));
      return verdict.promise;
    }
    if (
      (mechanism === 'session-steering' || mechanism === 'turn-steer') &&
      typeof this.inner.steer === 'function'
    ) {
      const expected = this.inner.activeTurnId ?? null;
      return this.inner.steer(text).then(
        async (answer) => {
          if (answer.kind === 'transport' && answer.written) {
            // An answer lost with the agent: the steer fails like any in-flight prompt.
            await Promise.race([
              this.inner.exited,
              new Promise((resolve) => setTimeout(resolve, 0)),
            ]);
            if (this.gone !== null)
              return {
                outcome: 'failed' as const,
                reason: `the agent went away: ${this.gone}`,
                requeue: false,
                rpcId: null,
              };
          }
          const verdict =
            mechanism === 'turn-steer'
              ? classifyTurnSteer(expected ?? '', answer)
              : classifySessionSteering(answer);
          return { ...verdict, rpcId: null };
        },
        (error: unknown) => ({
          ...classifySessionSteering({ kind: 'transport', written: true, message: String(error) }),
          rpcId: null,
        }),
      );
    }
    return Promise.resolve({
      outcome: 'degraded',
      reason: 'the agent offers no steer primitive',
      requeue: true,
      rpcId: null,
    });
  }

  async cancel(): Promise<void> {
    if (this.state.slots.length > 0) {
      this.cancelling = true;
      this.observe({ kind: 'cancel-sent' });
    }
    await this.inner.cancel();
  }

  close(boundMs: number): Promise<void> {
    return this.inner.close(boundMs);
  }

  /** The seen-by-agent receipt of a steer the agent accepted into `turnId`, where the agent gives one. */
  receipt(turnId: string, text: string): Promise<SteerReceipt | null> {
    return typeof this.inner.receipt === 'function'
      ? this.inner.receipt(turnId, text)
      : Promise.resolve(null);
  }

  /** The rpc id a prompt key was written with, when seen. */
  rpcId(key: string): string | null {
    return this.rpcIds.get(key) ?? null;
  }

  private track(key: string, request: Promise<TurnEnd>): void {
    request.then(
      (end) => this.observe({ ...toTurnEnd(end), rpc: key }, end),
      (error: unknown) => {
        const code = rpcCode(error);
        const message = error instanceof Error ? error.message : String(error);
        if (code !== null)
          this.observe({ kind: 'rejected', rpc: key, code, message }, undefined, error);
        // Anything but an agent's error answer means the connection went away: every prompt fails.
        else this.observe({ kind: 'connection-lost', reason: message }, undefined, error);
      },
    );
  }

  private observe(obs: WireObservation, end?: TurnEnd, error?: unknown): void {
    const step = reduce(this.state, obs);
    this.state = step.state;
    const requeued = new Set(
      step.effects.flatMap((e) => (e.kind === 'requeue' ? [e.commandId] : [])),
    );
    for (const effect of step.effects) this.apply(effect, requeued, end, error);
    if (this.state.slots.length === 0) this.cancelling = false;
  }

  private apply(
    effect: Effect,
    requeued: ReadonlySet<string>,
    end?: TurnEnd,
    error?: unknown,
  ): void {
    switch (effect.kind) {
      case 'run-finished':
      case 'run-cancelled':
      case 'run-failed': {
        const run = this.runs.get(effect.run);
        this.runs.delete(effect.run);
        if (!run) return;
        if (end !== undefined) run.resolve(end);
        else
          run.reject(
            error instanceof Error
              ? error
              : new Error(effect.kind === 'run-failed' ? effect.reason : 'the turn ended'),
          );
        return;
      }
      case 'run-started': {
        if (effect.commandId === null || this.runs.has(effect.run)) return;
        const run = deferred<TurnEnd>();
        this.runs.set(effect.run, run);
        const text = this.verdicts.get(effect.commandId)?.text ?? '';
        this.adopted.push({ text, commandId: effect.commandId, promise: run.promise });
        this.hooks?.adopt(effect.commandId);
        return;
      }
      case 'outcome': {
        const waiting = this.verdicts.get(effect.commandId);
        if (!waiting) return;
        this.verdicts.delete(effect.commandId);
        waiting.deferred.resolve({
          outcome: effect.outcome,
          reason: effect.reason,
          requeue: requeued.has(effect.commandId),
          rpcId: this.rpcId(waiting.key),
        });
        return;
      }
      default:
        return;
    }
  }
}

/** The JSON-RPC id of a written request line, or null. */
function lineId(line: string): string | null {
  try {
    const id = (JSON.parse(line) as { id?: unknown }).id;
    return typeof id === 'number' || typeof id === 'string' ? String(id) : null;
  } catch {
    return null;
  }
}
