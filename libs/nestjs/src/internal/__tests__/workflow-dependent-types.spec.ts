import { describe, expect, it } from '@jest/globals';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));

describe('the type of workflow dependents in @Reconciler options', () => {
  it('accepts Nest provider classes with injected constructor parameters as dependents and conditions; rejects classes of something else (tsc on a fixture)', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      resolve(here, '../../../../../tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    )!;
    const fixture = join(here, 'types/workflow-dependent.fixture.ts');
    const program = ts.createProgram([fixture], { ...config.options, noEmit: true });
    const diagnostics = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(fixture))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    // every @ts-expect-error in the fixture was needed (an unused one is reported), nothing else fails
    expect(diagnostics).toEqual([]);
    const text = program.getSourceFile(fixture)!.text;
    expect(text.match(/^\s*\/\/ @ts-expect-error --/gm)?.length).toBe(2);
  }, 120_000);
});
