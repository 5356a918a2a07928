/** The steering instructions of one session, each settled from the stream. */
import type { AepEvent } from '../../../common/aep/envelope';
import type { SentCommand } from './console-store';
import { settle, type Settlement } from './command-settlement';
import { dataString, isInstruct } from './event-types';

/** One instruction as the composer lists it. */
export interface InstructionItem {
  readonly id: string;
  readonly text: string | null;
  readonly sentAt: string;
  /** Who sent it (the surface extension attribute), when the stream says. */
  readonly surface: string | null;
  readonly settlement: Settlement;
}

/** Instructions of a session: those on its stream plus those this window sent, newest first. */
export function instructionItems(
  session: string,
  fleetEvents: readonly AepEvent[],
  commands: ReadonlyMap<string, SentCommand>,
  caused: (id: string) => readonly AepEvent[],
): InstructionItem[] {
  const items = new Map<string, InstructionItem>();
  for (const e of fleetEvents) {
    if (!isInstruct(e.type)) continue;
    const local = commands.get(e.id);
    items.set(e.id, {
      id: e.id,
      text: dataString(e, 'text') ?? local?.text ?? null,
      sentAt: e.time,
      surface: typeof e.surface === 'string' ? e.surface : null,
      settlement: settle(caused(e.id), local ? { sent: local.sent, timedOut: local.timedOut, refusal: local.refusal } : null),
    });
  }
  for (const c of commands.values()) {
    if (c.session !== session || !isInstruct(c.type) || items.has(c.id)) continue;
    items.set(c.id, {
      id: c.id,
      text: c.text ?? null,
      sentAt: c.sentAt,
      surface: c.surface ?? 'console',
      settlement: settle(caused(c.id), { sent: c.sent, timedOut: c.timedOut, refusal: c.refusal }),
    });
  }
  return [...items.values()].sort((a, b) => (a.sentAt < b.sentAt ? 1 : a.sentAt > b.sentAt ? -1 : 0));
}
