import 'reflect-metadata';
import { describe, expect, it, jest } from '@jest/globals';
import { Module } from '@nestjs/common';
import { createOperatorTestingModule } from '../create-operator-testing-module.js';

@Module({})
class EmptyFeature {}

describe('createOperatorTestingModule logging', () => {
  it("shows the framework's warnings in tests (Nest's testing logger would hide them)", async () => {
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    let t: Awaited<ReturnType<typeof createOperatorTestingModule>> | undefined;
    try {
      t = await createOperatorTestingModule({
        imports: [EmptyFeature],
        operator: { readEnvironment: false },
      });
    } finally {
      out.mockRestore();
      err.mockRestore();
      await t?.close();
    }
    const warning = written.find((w) => w.includes('no @Reconciler providers found'));
    expect(warning).toBeDefined();
    expect(warning).toContain('WARN');
  }, 30_000);
});
