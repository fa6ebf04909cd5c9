import { ConsoleLogger, Logger as NestLogger } from '@nestjs/common';
import { currentResourceContext } from '@tosdk/core';
import type { LogFields, Logger } from '@tosdk/core';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Whether Nest's logger is its own console logger (text lines) rather than pino or an app's own. */
function nestLogsToConsole(): boolean {
  const ref = (NestLogger as unknown as { staticInstanceRef?: unknown }).staticInstanceRef;
  if (ref === undefined) return true;
  if (!(ref instanceof ConsoleLogger)) return false;
  // ConsoleLogger({ json: true }) wants objects
  return (ref as unknown as { options?: { json?: boolean } }).options?.json !== true;
}

function textValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/** The stack of an error followed by the stacks of its causes, as pino's err serializer writes it. */
function stackWithCauses(error: Error): string {
  let out = error.stack ?? `${error.name}: ${error.message}`;
  const seen = new Set<unknown>([error]);
  let cause: unknown = error.cause;
  while (cause instanceof Error && !seen.has(cause)) {
    seen.add(cause);
    out += `\ncaused by: ${cause.stack ?? `${cause.name}: ${cause.message}`}`;
    cause = cause.cause;
  }
  return out;
}

/**
 * Core's `Logger` on Nest's `Logger` (context `tosdk`), so the framework logs where the app logs.
 * Every line has one shape: the resource as `resource.*` keys and `controller` (the running
 * reconciliation's context; outside one, core's `resource` string becomes `resource.id`, never a bare
 * `resource` string beside `resource.*` keys), and an error as `err`
 * (the Error object: pino's err serializer writes its type, message, stack and causes).
 * - With nestjs-pino (`app.useLogger(app.get(Logger))`) or any logger of the app's own, a line is
 *   an object `{ msg, ...fields }`.
 * - With Nest's own console logger (no nestjs-pino), a line is one readable text line,
 *   `message key=value ...`; an error's stack and causes follow it at every level (at `error` as
 *   Nest prints stacks, else as a further message of that level).
 */
export class NestOperatorLogger implements Logger {
  constructor(
    private readonly nest: NestLogger = new NestLogger('tosdk'),
    private readonly bindings: LogFields = {},
  ) {}

  private fields(fields?: LogFields): LogFields {
    const out: LogFields = { ...currentResourceContext(), ...this.bindings };
    const given = fields ?? {};
    const err = given['err'] instanceof Error ? given['err'] : given['error'];
    for (const [key, value] of Object.entries(given)) {
      if (value === undefined) continue;
      if (key === 'resource' && typeof value === 'string') {
        // one shape: resource.* keys only. In a reconciliation the context's keys name the resource;
        // outside one core's string (a key like ns/name, or a kind like webpages.x.io/v1) is resource.id
        if (!('controller' in out && 'resource.kind' in out)) out['resource.id'] = value;
      } else if (err instanceof Error && (key === 'err' || key === 'error')) {
        // the Error as err (its message is in it); core's string error field is left out then
        out['err'] = err;
      } else {
        out[key] = value;
      }
    }
    return out;
  }

  private write(level: Level, message: string, fields?: LogFields): void {
    const all = this.fields(fields);
    if (!nestLogsToConsole()) {
      const line = { msg: message, ...all };
      if (level === 'info') this.nest.log(line);
      else this.nest[level](line);
      return;
    }
    const { err, ...rest } = all;
    const text = [
      message,
      ...Object.entries(rest).map(([k, v]) => `${k}=${textValue(v)}`),
      ...(err instanceof Error ? [`err=${textValue(`${err.name}: ${err.message}`)}`] : []),
    ].join(' ');
    const method = level === 'info' ? 'log' : level;
    // the stack and causes at every level (JOSDK logs a retried failure's exception at warn): Nest
    // prints an error's as its stack trace, and a further message of the other levels on its own lines
    if (err instanceof Error) this.nest[method](text, stackWithCauses(err));
    else this.nest[method](text);
  }

  debug(message: string, fields?: LogFields): void {
    this.write('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.write('error', message, fields);
  }
  child(bindings: LogFields): Logger {
    return new NestOperatorLogger(this.nest, { ...this.bindings, ...bindings });
  }
}
