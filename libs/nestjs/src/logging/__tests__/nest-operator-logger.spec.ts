import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { ConsoleLogger, Logger as NestLogger } from '@nestjs/common';
import type { LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Logger as PinoNestLogger, LoggerModule } from 'nestjs-pino';
import { NestOperatorLogger } from '../nest-operator-logger.js';

/** Nest's console logger, keeping what it is asked to print. */
class CapturedConsole extends ConsoleLogger {
  readonly calls: { level: string; args: unknown[] }[] = [];
  override log(...args: unknown[]): void {
    this.calls.push({ level: 'log', args });
  }
  override warn(...args: unknown[]): void {
    this.calls.push({ level: 'warn', args });
  }
  override error(...args: unknown[]): void {
    this.calls.push({ level: 'error', args });
  }
}

// what core's event processor writes when a reconciliation fails (outside the resource context)
function failure(): Record<string, unknown> {
  const root = new Error('connection refused');
  const err = Object.assign(new Error('apply of ConfigMap web/a failed', { cause: root }), {
    code: 'KubernetesTransport',
  });
  return { resource: 'web/a', error: err.message, errorCode: err.code, err, attemptCount: 3 };
}

const original = (NestLogger as unknown as { staticInstanceRef?: LoggerService }).staticInstanceRef;

describe('NestOperatorLogger', () => {
  afterEach(() => {
    NestLogger.overrideLogger(original ?? new ConsoleLogger());
  });

  it("without nestjs-pino writes one readable line per entry to Nest's console logger, the stack and causes as Nest prints stacks", () => {
    const console = new CapturedConsole();
    NestLogger.overrideLogger(console);
    new NestOperatorLogger().error('reconciliation failed; retries exhausted', failure());
    new NestOperatorLogger().info('controller registered', { controller: 'webpage', namespaces: ['a', 'b'] });
    const [error, info] = console.calls;
    expect(error.level).toBe('error');
    const line = error.args[0] as string;
    expect(typeof line).toBe('string');
    expect(line).not.toContain('\n');
    expect(line).toBe(
      'reconciliation failed; retries exhausted resource.id=web/a errorCode=KubernetesTransport attemptCount=3 err="Error: apply of ConfigMap web/a failed"',
    );
    const stack = error.args[1] as string;
    expect(stack).toContain('Error: apply of ConfigMap web/a failed\n    at ');
    expect(stack).toContain('caused by: Error: connection refused');
    expect(info.args[0]).toBe('controller registered controller=webpage namespaces=["a","b"]');
  });

  it('with nestjs-pino writes JSON with err serialized (stack and causes) and the resource as resource.* keys only', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const module = await Test.createTestingModule({
      imports: [LoggerModule.forRoot({ pinoHttp: [{ level: 'debug' }, stream] })],
    }).compile();
    module.useLogger(module.get(PinoNestLogger));
    try {
      new NestOperatorLogger().error('reconciliation failed; retries exhausted', failure());
      const line = lines.find((l) => l['msg'] === 'reconciliation failed; retries exhausted');
      expect(line).toBeDefined();
      expect(line).toMatchObject({
        context: 'tosdk',
        'resource.id': 'web/a',
        errorCode: 'KubernetesTransport',
        attemptCount: 3,
      });
      expect(line).not.toHaveProperty('resource');
      expect(line).not.toHaveProperty('error');
      const err = line!['err'] as { type: string; message: string; stack: string };
      expect(err.type).toBe('Error');
      expect(err.stack).toContain('apply of ConfigMap web/a failed');
      expect(err.stack).toContain('caused by: Error: connection refused');
    } finally {
      await module.close();
    }
  });
});
