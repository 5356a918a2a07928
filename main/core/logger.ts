/**
 * Leveled logging for the daemon core. Each module calls `createLogger('scope')` once; where the
 * lines go (and from which level) is decided by the host through `configureLogging`, because the
 * core never reads the environment itself. Tokens never reach the sink: bearer values and
 * `access_token` query parameters are scrubbed from every message and field.
 */

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One structured log line. */
export interface LogRecord {
  readonly time: string;
  readonly level: Exclude<LogLevel, 'silent'>;
  readonly scope: string;
  readonly message: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

/** Where log records go. */
export type LogSink = (record: LogRecord) => void;

/** A scoped logger. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Writes one human-readable line per record to stderr. */
export const stderrSink: LogSink = (r) => {
  const extra = r.fields && Object.keys(r.fields).length > 0 ? ` ${JSON.stringify(r.fields)}` : '';
  process.stderr.write(`${r.time} ${r.level.padEnd(5)} [${r.scope}] ${r.message}${extra}\n`);
};

let currentLevel: LogLevel = 'warn';
let currentSink: LogSink = stderrSink;
const secrets = new Set<string>();

/** Chooses the minimum level and the sink for every logger in the process. */
export function configureLogging(options: { level?: LogLevel; sink?: LogSink }): void {
  if (options.level) currentLevel = options.level;
  if (options.sink) currentSink = options.sink;
}

/** Registers a secret (a token) that must never appear in a log line, even outside known shapes. */
export function registerSecret(secret: string): void {
  if (secret.length >= 8) secrets.add(secret);
}

/** Removes the secrets registered by `registerSecret` (a rotated token, a closed daemon). */
export function forgetSecret(secret: string): void {
  secrets.delete(secret);
}

const rank = (level: LogLevel): number => LOG_LEVELS.indexOf(level);

/** Removes tokens from a string: `access_token` query values, bearer values, registered secrets. */
export function scrub(text: string): string {
  let out = text
    .replace(/([?&]access_token=)[^&#\s"]*/gi, '$1[redacted]')
    .replace(/(bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]');
  for (const secret of secrets)
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  return out;
}

function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return scrub(value.message);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = /token|authorization|secret/i.test(k) ? '[redacted]' : scrubValue(v, depth + 1);
  }
  return out;
}

/** Creates the logger of one module. */
export function createLogger(scope: string): Logger {
  const emit = (
    level: Exclude<LogLevel, 'silent'>,
    message: string,
    fields?: Record<string, unknown>,
  ): void => {
    if (rank(level) < rank(currentLevel)) return;
    const record: LogRecord = {
      time: new Date().toISOString(),
      level,
      scope,
      message: scrub(message),
      ...(fields ? { fields: scrubValue(fields) as Record<string, unknown> } : {}),
    };
    try {
      currentSink(record);
    } catch {
      // A failing sink must never take the daemon down with it.
    }
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
