/**
 * The transcript source of observed sessions: the tailer, the vendor formats, and delivery as
 * events of the same session through the vendor's emitter (the one that emits its hooks), so a
 * transcript fact is never a second claim on the session.
 */
import type { VendorId } from '../../../common/vendors';
import type { VendorEmitter } from '../steering/vendor-emitter';
import type { AuditSink } from '../steering/steering-types';
import type { MappedEvent, MappingContext } from '../vendors/types';
import type { Logger } from '../logger';
import { claudeCodeTranscripts } from '../vendors/claude-code/transcript';
import { codexTranscripts } from '../vendors/codex/transcript';
import { qwenCodeTranscripts } from '../vendors/qwen-code/transcript';
import type { TranscriptFormat } from './facts';
import { TranscriptTailer, type PositionStore, type TailerLimits } from './tailer';
import { transcriptEvents } from './transcript-events';

/** The vendors whose transcripts are read, and their formats. */
const FORMATS: Partial<Record<VendorId, TranscriptFormat>> = {
  'claude-code': claudeCodeTranscripts,
  codex: codexTranscripts,
  'qwen-code': qwenCodeTranscripts,
};

/** The transcript format of a vendor, or undefined. */
export const transcriptFormat = (vendor: VendorId): TranscriptFormat | undefined => FORMATS[vendor];

/** What the feed is built from. */
export interface TranscriptFeedDeps {
  readonly home: string;
  readonly vars?: Readonly<Record<string, string | undefined>>;
  readonly enabled: () => boolean;
  readonly emitter: (vendor: VendorId) => VendorEmitter;
  /** The mapping context in force (capture ceilings, redaction). */
  readonly context: () => MappingContext;
  readonly audit: AuditSink;
  readonly logger: Logger;
  /** Tells the session registry the transcript source sees the session (sessions/source.ts). */
  readonly sighted?: (vendor: VendorId, session: string) => void;
  /**
   * Hands facts to the owner of a session another source owns (the registry's merge drops those
   * the owner reports itself, such as the replies ACP already carries); false: none owns it live,
   * the facts go out through the vendor's emitter.
   */
  readonly enrich?: (session: string, events: readonly MappedEvent[]) => Promise<boolean>;
  readonly positions?: PositionStore;
  readonly limits?: Partial<TailerLimits>;
}

/** Builds the tailer whose facts are emitted as events of the session the hooks emit. */
export function createTranscriptFeed(deps: TranscriptFeedDeps): TranscriptTailer {
  return new TranscriptTailer({
    home: deps.home,
    vars: deps.vars,
    format: transcriptFormat,
    enabled: deps.enabled,
    positions: deps.positions,
    limits: deps.limits,
    logger: deps.logger,
    deliver: async (vendor, session, facts, run) => {
      const emitter = deps.emitter(vendor);
      deps.sighted?.(vendor, session);
      const events = transcriptEvents(vendor, facts, deps.context(), run ?? emitter.mappingState(session).run);
      if (events.length === 0) return;
      if (deps.enrich !== undefined && (await deps.enrich(session, events))) return;
      await emitter.send(emitter.stampMapped(session, events));
    },
    refused: (vendor, session, path, reason) =>
      deps.audit({
        actor: vendor,
        surface: 'hook',
        action: 'transcript.refused',
        session,
        commandId: null,
        outcome: 'refused',
        detail: { path, reason },
      }),
  });
}
