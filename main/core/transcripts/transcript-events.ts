/**
 * Transcript facts as AEP events of the session its hooks emit, at the capture level in force:
 * - a reply: `x.{vendor}.message.replied` (the shape of AEP-0007's reserved `message.agent.replied`:
 *   `message_id`, `role`, `text` [redacted], `text_digest`, `chars`, `usage`, the model);
 *   a response without text (only tool calls) gives `x.{vendor}.usage.reported` (usage, model);
 * - an interrupt: `x.{vendor}.run.interrupted` `{ by: "user" }`;
 * - an API error: `error.raised` `{ error: { type: "api_error", message } }`;
 * - cost: `x.{vendor}.usage.reported` `{ cost: { currency, total } }` (the session's running total);
 * - a title: `x.{vendor}.session.titled` `{ title }` [redacted].
 * Replies and usage ride in the run the hook that asked for the read saw open (the one a Stop
 * hook ended included), when there is one.
 */
import type { VendorId } from '../../../common/vendors';
import { gateFor } from '../vendors/capture-gate';
import { mapped } from '../vendors/event-builders';
import type { MappedEvent, MappingContext } from '../vendors/types';
import type { TranscriptFact, TranscriptUsage } from './facts';

/** The AEP usage object (OTel GenAI names) of a response; cache counts ride as vendor members. */
function usageObject(u: TranscriptUsage): Record<string, number> {
  const out: Record<string, number> = {};
  if (u.input !== undefined) out['gen_ai.usage.input_tokens'] = u.input;
  if (u.output !== undefined) out['gen_ai.usage.output_tokens'] = u.output;
  if (u.cacheRead !== undefined) out['cache_read_input_tokens'] = u.cacheRead;
  if (u.cacheWrite !== undefined) out['cache_creation_input_tokens'] = u.cacheWrite;
  return out;
}

/** The events of some facts of one session whose open run is `run`. */
export function transcriptEvents(vendor: VendorId, facts: readonly TranscriptFact[], context: MappingContext, run: string | null): MappedEvent[] {
  const out: MappedEvent[] = [];
  for (const fact of facts) {
    switch (fact.kind) {
      case 'reply': {
        const usage = fact.usage === undefined ? undefined : usageObject(fact.usage);
        const model = fact.model === undefined ? {} : { 'gen_ai.request.model': fact.model };
        if (fact.text === '') {
          out.push(mapped(`x.${vendor}.usage.reported`, context, { ...(usage === undefined ? {} : { usage }), ...model }, { run }));
          break;
        }
        const type = `x.${vendor}.message.replied`;
        const gate = gateFor(type, context);
        const text = gate.text(fact.text);
        out.push(
          mapped(
            type,
            context,
            {
              message_id: fact.id,
              role: 'assistant',
              ...(text === undefined ? {} : { text }),
              ...(gate.allows('metadata') ? { text_digest: gate.digest(fact.text), chars: fact.text.length } : {}),
              ...(usage === undefined ? {} : { usage }),
              ...model,
            },
            { run, subject: fact.id === '' ? undefined : fact.id },
          ),
        );
        break;
      }
      case 'interrupt':
        out.push(mapped(`x.${vendor}.run.interrupted`, context, { by: 'user' }, { run }));
        break;
      case 'api-error': {
        const message = gateFor('error.raised', context).text(fact.message);
        out.push(mapped('error.raised', context, { error: { type: 'api_error', ...(message === undefined ? {} : { message }) }, code: 'api_error' }, { run, severity: 'error' }));
        break;
      }
      case 'cost':
        out.push(mapped(`x.${vendor}.usage.reported`, context, { cost: { currency: fact.currency, total: fact.total } }));
        break;
      case 'title': {
        const type = `x.${vendor}.session.titled`;
        const title = gateFor(type, context).text(fact.title);
        out.push(mapped(type, context, title === undefined ? {} : { title }));
        break;
      }
    }
  }
  return out;
}
