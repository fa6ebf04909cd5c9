// Test support of @tosdk/nestjs's tests: not shipped.
import type { LoggerService } from '@nestjs/common';

/** A Nest logger that keeps what is written, as a user reading the console would see it. */
export class CapturingLogger implements LoggerService {
  readonly lines: { level: string; text: string }[] = [];
  private add(level: string, message: unknown): void {
    this.lines.push({ level, text: typeof message === 'string' ? message : JSON.stringify(message) });
  }
  log(message: unknown): void {
    this.add('log', message);
  }
  error(message: unknown): void {
    this.add('error', message);
  }
  warn(message: unknown): void {
    this.add('warn', message);
  }
  debug(message: unknown): void {
    this.add('debug', message);
  }
  verbose(message: unknown): void {
    this.add('verbose', message);
  }
  /** The warnings' texts, in order. */
  warnings(): string[] {
    return this.lines.filter((l) => l.level === 'warn').map((l) => l.text);
  }
}
