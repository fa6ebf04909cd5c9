import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';

describe('toolchain', () => {
  it('runs npm scripts on the pinned Node 24 from the node devDependency', () => {
    // `npm test` puts node_modules/.bin first on PATH, so this is the pinned binary.
    const out = spawnSync('node', ['--version'], { encoding: 'utf8' });
    expect(out.stdout.trim()).toMatch(/^v24\./);
    expect(process.version).toMatch(/^v24\./);
  });
});
