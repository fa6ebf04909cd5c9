import { describe, expect, it } from '@jest/globals';
import * as pkg from '@tosdk/core';

describe('@tosdk/core package', () => {
  it('is importable by its package name', () => {
    expect(pkg.PACKAGE_NAME).toBe('@tosdk/core');
  });
});
