import { useNow } from './use-now';
import { dateTime, relativeTime } from './format';

/** A time shown relatively, with the exact time on hover. */
export function RelativeTime({ iso }: { iso: string | null | undefined }) {
  const now = useNow();
  return <time dateTime={iso ?? undefined} title={iso ? dateTime(iso) : undefined}>{relativeTime(iso, now)}</time>;
}
