/**
 * Proves which hook moments' `additionalContext` a CLI really reads: the hook receiver answers each
 * probed call with a unique marker, and the marker must appear in the first agent-loop request the
 * CLI sends to the model stub after that reply.
 */
import type { HookCall, HookReplier } from './hook-receiver';
import { contextReply } from './hook-receiver';
import type { RecordedRequest } from './model-stubs/stub-server';
import { requestContains } from './model-stubs/stub-server';

/** The marker a probed call carries, e.g. `aep-probe-PreToolUse-1`. */
export function probeMarker(moment: string, nth: number): string {
  return `aep-probe-${moment}-${nth}`;
}

/** A replier that answers every call of the probed moments with its marker (Stop only the first time, so a CLI that loops on Stop context ends). */
export function probeReplier(moments: readonly string[]): HookReplier {
  return ({ moment, nth }) => {
    if (!moments.includes(moment)) return undefined;
    if (moment === 'Stop' && nth > 1) return undefined;
    return contextReply(moment, probeMarker(moment, nth));
  };
}

/** One probed call and what became of its context. */
export interface ProbeOutcome {
  /** `<moment>#<nth>`. */
  readonly key: string;
  /** Whether the marker reached the first agent request after the reply. */
  readonly readNext: boolean;
  /** Whether the marker reached any later agent request. */
  readonly readLater: boolean;
}

/** For each call that was answered with a marker: did the next agent request carry it? */
export function probeOutcomes(
  calls: readonly HookCall[],
  requests: readonly RecordedRequest[],
  isAgent: (r: RecordedRequest) => boolean,
): ProbeOutcome[] {
  const counts = new Map<string, number>();
  const out: ProbeOutcome[] = [];
  for (const call of calls) {
    const nth = (counts.get(call.moment) ?? 0) + 1;
    counts.set(call.moment, nth);
    const marker = probeMarker(call.moment, nth);
    if (!JSON.stringify(call.reply).includes(marker)) continue;
    const later = requests.filter((r) => isAgent(r) && r.at > call.repliedAt);
    out.push({
      key: `${call.moment}#${nth}`,
      readNext: later.length > 0 && requestContains(later[0], marker),
      readLater: later.some((r) => requestContains(r, marker)),
    });
  }
  return out;
}
