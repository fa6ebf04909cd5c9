// The repository's import rules (scripts/check-imports.mjs, run by `npm run lint` too): no import
// cycles, @tosdk/core free of Nest, pino, prom-client and the API server, packages meeting only by
// name. Checked on this repository, and on a small tree that breaks each rule, so the check is
// known to bite.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const script = join(repo, 'scripts/check-imports.mjs');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function check(root: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, root], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('import rules (scripts/check-imports.mjs)', () => {
  let fixture: string;
  const write = (path: string, text: string) => {
    const file = join(fixture, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };

  beforeAll(() => {
    fixture = mkdtempSync(join(tmpdir(), 'tosdk-import-rules-'));
    // a cycle of type-only imports
    write(
      'libs/core/src/api/context.ts',
      "import type { Reconciler } from './reconciler.js';\nexport type Context = { r?: Reconciler };\n",
    );
    write(
      'libs/core/src/api/reconciler.ts',
      "import type { Context } from './context.js';\nexport interface Reconciler { reconcile(c: Context): void }\n",
    );
    // core reaching for prom-client (static) and pino (dynamic); Nest only in a comment
    write(
      'libs/core/src/metrics.ts',
      "import { Counter } from 'prom-client';\nexport const c = new Counter({ name: 'x', help: 'x' });\n",
    );
    write(
      'libs/core/src/log.ts',
      "/** e.g. import { Logger } from '@nestjs/common' */\nexport const load = () => import('pino');\n",
    );
    // core's tests may use the API server, not Nest's package
    write(
      'libs/core/src/__tests__/ok.spec.ts',
      "import { KubeApiServer } from '@tosdk/apiserver';\nexport { KubeApiServer };\n",
    );
    write(
      'libs/core/src/__tests__/nest.spec.ts',
      "import { OperatorModule } from '@tosdk/nestjs';\nexport { OperatorModule };\n",
    );
    // an app importing a package's sources by path
    write('apps/demo/src/main.ts', "import { c } from '../../../libs/core/src/metrics.js';\nexport { c };\n");
    // a package without problems
    write(
      'libs/nestjs/src/index.ts',
      "import { Module } from '@nestjs/common';\nimport { c } from '@tosdk/core';\nexport { Module, c };\n",
    );
  });
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('this repository breaks none of them', async () => {
    const run = await check(repo);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('a tree that breaks each one fails, with a line per breach naming the file, the import and what to do', async () => {
    const run = await check(fixture);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^import cycle in libs\/core \(2 files\): libs\/core\/src\/api\/context\.ts -> libs\/core\/src\/api\/reconciler\.ts -> libs\/core\/src\/api\/context\.ts; move what both sides need/,
        ),
        expect.stringMatching(
          /^libs\/core\/src\/metrics\.ts:1 imports 'prom-client': @tosdk\/core must not depend on/,
        ),
        expect.stringMatching(/^libs\/core\/src\/log\.ts:2 imports 'pino': @tosdk\/core must not depend on/),
        expect.stringMatching(/^libs\/core\/src\/__tests__\/nest\.spec\.ts:1 imports '@tosdk\/nestjs': /),
        expect.stringMatching(
          /^apps\/demo\/src\/main\.ts:1 imports '\.\.\/\.\.\/\.\.\/libs\/core\/src\/metrics\.js', outside apps\/demo: import another package by its name/,
        ),
        'check-imports: 5 problem(s) under ' + fixture.replace(/\/$/, ''),
      ]),
    );
    // five breaches and the summary: the comment's example, the tests' API server and the Nest
    // package's own imports are none
    expect(lines).toHaveLength(6);
    expect(run.stderr).not.toContain('@nestjs/common');
    expect(run.stderr).not.toContain('ok.spec.ts');
  });
});
