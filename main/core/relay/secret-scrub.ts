/**
 * The daemon's own secrets (operator and hook token) never enter the history or a stream: every
 * ingested event, from any emitter at any capture level, is searched for them and each occurrence
 * is replaced by the redaction mark before the event is stored or fanned out. The tokens are
 * URL-safe base64, so the replacement keeps the JSON text valid; the event is re-parsed from it.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { SECRET_MARK } from '../aep/redact';
import type { IngestItem } from './relay-types';

/** Secrets shorter than this are not searched for (a token is 43 characters). */
const MIN_SECRET_LENGTH = 16;

/** `items` with every occurrence of a secret replaced; the same array when none carries one. */
export function scrubSecrets(
  items: readonly IngestItem[],
  secrets: readonly string[],
  onScrubbed: (event: AepEvent) => void = () => undefined,
): readonly IngestItem[] {
  const searched = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  if (searched.length === 0) return items;
  let out: IngestItem[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const { json } = items[i];
    if (!searched.some((s) => json.includes(s))) continue;
    let text = json;
    for (const secret of searched) text = text.split(secret).join(SECRET_MARK);
    (out ??= [...items])[i] = { event: JSON.parse(text) as AepEvent, json: text };
    onScrubbed(items[i].event);
  }
  return out ?? items;
}
