import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';

// An editor's auto-import offers every package that exports a name: two different things of one
// name in @tosdk/core and @tosdk/nestjs (e.g. core's light loadKubeConfig and the Nest one that
// returns a client-node KubeConfig) is a trap. Names may be shared only when they are the same object.
describe('@tosdk/nestjs and @tosdk/core export names', () => {
  it('no name stands for two different things across the root entry points', async () => {
    const core = (await import('@tosdk/core')) as Record<string, unknown>;
    const nest = (await import('../index.js')) as Record<string, unknown>;
    // PACKAGE_NAME is each package's own name by design (read as `import * as pkg`)
    const clashes = Object.keys(nest).filter(
      (name) => name !== 'PACKAGE_NAME' && name in core && core[name] !== nest[name],
    );
    expect(clashes).toEqual([]);
  });
});
