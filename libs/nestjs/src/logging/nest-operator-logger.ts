import { Logger as NestLogger } from '@nestjs/common';
import { currentResourceContext } from '@tosdk/core';
import type { LogFields, Logger } from '@tosdk/core';

/**
 * Core's `Logger` on Nest's `Logger` (context `tosdk`), so the framework logs where the app logs:
 * the console, or pino with `app.useLogger(app.get(Logger))` of nestjs-pino. Each line is an object
 * `{ msg, ...fields }` with the resource context of the running reconciliation added.
 */
export class NestOperatorLogger implements Logger {
  constructor(
    private readonly nest: NestLogger = new NestLogger('tosdk'),
    private readonly bindings: LogFields = {},
  ) {}

  private line(msg: string, fields?: LogFields): Record<string, unknown> {
    return { msg, ...currentResourceContext(), ...this.bindings, ...fields };
  }

  debug(message: string, fields?: LogFields): void {
    this.nest.debug(this.line(message, fields));
  }
  info(message: string, fields?: LogFields): void {
    this.nest.log(this.line(message, fields));
  }
  warn(message: string, fields?: LogFields): void {
    this.nest.warn(this.line(message, fields));
  }
  error(message: string, fields?: LogFields): void {
    this.nest.error(this.line(message, fields));
  }
  child(bindings: LogFields): Logger {
    return new NestOperatorLogger(this.nest, { ...this.bindings, ...bindings });
  }
}
