import { describe, expect, it } from '@jest/globals';
import { defaultPlural } from '@tosdk/core';
import { kindNames } from 'create-tosdk';

describe('plurals of generated kinds', () => {
  it("are the plurals @tosdk/core's defineResource gives them (create-tosdk repeats its rules)", () => {
    const kinds = [
      'Greeting',
      'WebPage',
      'NetworkPolicy',
      'Gateway',
      'Ingress',
      'Mailbox',
      'Batch',
      'Mesh',
      'Status',
      'Prometheus',
      'Endpoints',
      'Gizmo',
      'Shelf',
      'Knife',
      'Datum',
      'Axis',
      'Quiz',
      'Mouse',
      'Person',
      'Sheep',
      'Series',
    ];
    for (const kind of kinds) expect([kind, kindNames(kind).plural]).toEqual([kind, defaultPlural(kind)]);
  });
});
