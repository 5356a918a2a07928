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

const searchable = (secret: string): boolean => secret.length >= MIN_SECRET_LENGTH;

/** True when `json` holds one of the searched `secrets` (a loop: this runs for every ingested event). */
function carries(json: string, secrets: readonly string[]): boolean {
  for (const s of secrets) if (searchable(s) && json.includes(s)) return true;
  return false;
}

/** `items` with every occurrence of a secret replaced; the same array when none carries one. */
export function scrubSecrets(
  items: readonly IngestItem[],
  secrets: readonly string[],
  onScrubbed: (event: AepEvent) => void = () => undefined,
): readonly IngestItem[] {
  let out: IngestItem[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const { json } = items[i];
    if (!carries(json, secrets)) continue;
    let text = json;
    for (const secret of secrets) if (searchable(secret)) text = text.split(secret).join(SECRET_MARK);
    (out ??= [...items])[i] = { event: JSON.parse(text) as AepEvent, json: text };
    onScrubbed(items[i].event);
  }
  return out ?? items;
}
