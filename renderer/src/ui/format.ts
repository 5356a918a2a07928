/** Small display formatters. */

const pad = (n: number): string => String(n).padStart(2, '0');

/** "12 s ago", "3 min ago", "2 h ago", or a date for old times. */
export function relativeTime(iso: string | null | undefined, now: number): string {
  if (!iso) return 'never';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  return new Date(t).toLocaleDateString();
}

/** Local wall-clock time, 24-hour HH:MM:SS: compact and aligned in timelines. */
export function clockTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local date and 24-hour time, YYYY-MM-DD HH:MM:SS: sortable and unambiguous in tables. */
export function dateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A grouped integer: 12,345. */
export const count = (n: number | undefined): string => (n === undefined ? '–' : n.toLocaleString('en-US'));

/** The last path segments of a directory, for narrow cells. */
export function shortPath(path: string | null): string {
  if (!path) return '—';
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts.length <= 2 ? path : `…/${parts.slice(-2).join('/')}`;
}
