import { describe, expect, it } from '@jest/globals';
import { compareKubeVersions } from '../index.js';

describe('compareKubeVersions', () => {
  it('orders GA, beta, alpha by number, then other names alphabetically', () => {
    const sorted = [
      'foo',
      'v1alpha1',
      'v1',
      'v11alpha2',
      'v2beta1',
      'v10',
      'v2',
      'v1beta2',
      'bar',
      'v12alpha1',
    ].sort(compareKubeVersions);
    expect(sorted).toEqual([
      'v10',
      'v2',
      'v1',
      'v2beta1',
      'v1beta2',
      'v12alpha1',
      'v11alpha2',
      'v1alpha1',
      'bar',
      'foo',
    ]);
  });
});
