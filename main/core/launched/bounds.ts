/** Bounded waiting on an agent's answer: an agent that never answers is reported hung, not waited on forever. */
import type { DriverEvents } from './driver';

/** The agent did not answer a request within its bound. */
export class AgentHungError extends Error {
  constructor(
    readonly method: string,
    readonly afterMs: number,
  ) {
    super(`the agent did not answer ${method} within ${afterMs} ms (hung)`);
    this.name = 'AgentHungError';
  }
}

/** Races `work` against `boundMs`; on expiry reports `hung` and rejects with AgentHungError. */
export function withBound<T>(method: string, boundMs: number, work: Promise<T>, events: Pick<DriverEvents, 'hung'>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      events.hung(method, boundMs);
      reject(new AgentHungError(method, boundMs));
    }, boundMs);
    timer.unref?.();
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
