// Review S12: the reconciler schematic as Nest's CLI runs it (`nest g -c @tosdk/cli reconciler X
// --no-spec` passes `spec: false`, the only option it forwards besides its own).
import { describe, expect, it } from '@jest/globals';
import { MARKERS } from 'create-tosdk';
import { reconciler } from '../schematics/reconciler.js';
import type { SchematicTree } from '../schematics/tree.js';

/** An in-memory project with the two lists create-tosdk writes. */
function project(): SchematicTree & { files: Map<string, string> } {
  const files = new Map<string, string>([
    [
      'src/reconcilers.ts',
      `${MARKERS.imports}\nexport const RECONCILERS = [\n  ${MARKERS.reconcilers}\n];\n`,
    ],
    ['src/kinds.ts', `${MARKERS.kindImports}\nexport const KINDS = [\n  ${MARKERS.kinds}\n];\n`],
    ['vitest.config.ts', 'export default {};\n'],
  ]);
  return {
    files,
    exists: (path) => files.has(path),
    read: (path) => (files.has(path) ? { toString: () => files.get(path)! } : null),
    create: (path, content) => void files.set(path, content),
    overwrite: (path, content) => void files.set(path, content),
  };
}

describe('review S12: the reconciler schematic under nest g', () => {
  it('[FINDING S12-DOC6] nest g ... --no-spec (spec: false) skips the e2e test as skipTest does (it was written anyway)', () => {
    const noSpec = project();
    reconciler({ name: 'Backup', spec: false })(noSpec);
    expect(noSpec.files.has('src/backup.reconciler.ts')).toBe(true);
    expect(noSpec.files.has('test/backup.e2e-spec.ts')).toBe(false);
    const withSpec = project();
    reconciler({ name: 'Backup' })(withSpec);
    expect(withSpec.files.has('test/backup.e2e-spec.ts')).toBe(true);
  });
});
