/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/**
 * The small logging interface of core (no logging library dependency). Integrations adapt it
 * (`@tosdk/nestjs` to pino). Inside a reconciliation the resource context is also available from
 * {@link currentResourceContext}, so an adapter can add it to every line.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `bindings` to every line. */
  child(bindings: LogFields): Logger;
}

/** A logger that writes nothing. */
export const noopLogger: Logger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => noopLogger,
});

/** Levels of {@link consoleLogger}, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * A logger that writes one JSON line per entry to stderr (`{"level":"info","msg":"...",...}`).
 * @param level - the lowest level written. Defaults to `info`.
 */
export function consoleLogger(level: LogLevel = 'info', bindings: LogFields = {}): Logger {
  const min = LEVELS.indexOf(level);
  const write = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (LEVELS.indexOf(lvl) < min) return;
    process.stderr.write(
      `${JSON.stringify({ level: lvl, time: new Date().toISOString(), msg, ...bindings, ...fields })}\n`,
    );
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (b) => consoleLogger(level, { ...bindings, ...b }),
  };
}
