import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { ConsoleLogger, Logger as NestLogger } from '@nestjs/common';
import type { LoggerService } from '@nestjs/common';
import { NestOperatorLogger } from '../nest-operator-logger.js';

/** Nest's console logger, keeping what it is asked to print. */
class CapturedConsole extends ConsoleLogger {
  readonly calls: { level: string; args: unknown[] }[] = [];
  override warn(...args: unknown[]): void {
    this.calls.push({ level: 'warn', args });
  }
  override debug(...args: unknown[]): void {
    this.calls.push({ level: 'debug', args });
  }
}

const original = (NestLogger as unknown as { staticInstanceRef?: LoggerService }).staticInstanceRef;

describe('review s14: Nest operator logger', () => {
  afterEach(() => {
    NestLogger.overrideLogger(original ?? new ConsoleLogger());
  });

  it("[FINDING S14-NM3] without nestjs-pino a retried reconcile failure (warn) prints the error's stack and causes, not only its message", () => {
    const console = new CapturedConsole();
    NestLogger.overrideLogger(console);
    const root = new Error('connection refused');
    const err = new TypeError("Cannot read properties of undefined (reading 'spec')", { cause: root });
    new NestOperatorLogger().warn('reconciliation failed; retry scheduled', {
      resource: 'web/a',
      error: err.message,
      err,
      attemptCount: 1,
    });
    const [warn] = console.calls;
    expect(warn.level).toBe('warn');
    expect(warn.args[0]).toBe(
      'reconciliation failed; retry scheduled resource.id=web/a attemptCount=1 err="TypeError: Cannot read properties of undefined (reading \'spec\')"',
    );
    const printed = warn.args.filter((a): a is string => typeof a === 'string').join('\n');
    expect(printed).toContain("TypeError: Cannot read properties of undefined (reading 'spec')\n    at ");
    expect(printed).toContain('caused by: Error: connection refused');
    // the context stays the last argument, as Nest's Logger passes it
    expect(warn.args[warn.args.length - 1]).toBe('tosdk');
  });
});
