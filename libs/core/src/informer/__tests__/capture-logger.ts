import type { LogFields, Logger } from '../../util/logger.js';

/** One captured log line. */
export interface LogLine {
  level: string;
  message: string;
  fields: LogFields;
}

/** A logger that keeps its lines for assertions. */
export function captureLogger(
  lines: LogLine[] = [],
  bindings: LogFields = {},
): Logger & { lines: LogLine[] } {
  const write = (level: string) => (message: string, fields?: LogFields) =>
    lines.push({ level, message, fields: { ...bindings, ...fields } });
  return {
    lines,
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => captureLogger(lines, { ...bindings, ...more }),
  };
}
