import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceID } from '../../../api/resource-id.js';
import { defineResource } from '../../../api/resource-type.js';
import { isIndexableMapper, Mappers, primaryAnnotations } from '../mappers.js';

const Widget = defineResource({ group: 'test.tosdk.io', version: 'v1', kind: 'Widget' });
const Cluster = defineResource({ group: 'test.tosdk.io', version: 'v1', kind: 'Gadget', scope: 'Cluster' });

const cm = (metadata: V1ConfigMap['metadata']): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata,
});

describe('Mappers', () => {
  it('[ES-06] owner references: only owners of the primary kind (any version of its group), in the secondary namespace', () => {
    const mapper = Mappers.fromOwnerReferences<V1ConfigMap>(Widget);
    const refs = [
      { apiVersion: 'test.tosdk.io/v2', kind: 'Widget', name: 'a', uid: '1' },
      { apiVersion: 'apps/v1', kind: 'Widget', name: 'other-group', uid: '2' },
      { apiVersion: 'test.tosdk.io/v1', kind: 'Deployment', name: 'other-kind', uid: '3' },
    ];
    expect(mapper(cm({ name: 'c', namespace: 'ns', ownerReferences: refs }))).toEqual([
      new ResourceID('a', 'ns'),
    ]);
    expect(mapper(cm({ name: 'c', namespace: 'ns' }))).toEqual([]);
    const clusterOwner = Mappers.fromOwnerReferences<V1ConfigMap>(Cluster);
    expect(
      clusterOwner(
        cm({
          name: 'c',
          namespace: 'ns',
          ownerReferences: [{ apiVersion: 'test.tosdk.io/v1', kind: 'Gadget', name: 'g', uid: '4' }],
        }),
      ),
    ).toEqual([new ResourceID('g')]);
  });

  it('[ES-06] annotations with default and custom keys, labels, and an empty result without them', () => {
    const primary = { metadata: { name: 'p', namespace: 'home' } };
    expect(
      Mappers.fromDefaultAnnotations<V1ConfigMap>()(
        cm({ name: 'c', namespace: 'x', annotations: primaryAnnotations(primary) }),
      ),
    ).toEqual([new ResourceID('p', 'home')]);
    expect(
      Mappers.fromAnnotation<V1ConfigMap>('my/name')(
        cm({ name: 'c', namespace: 'x', annotations: { 'my/name': 'q' } }),
      ),
    ).toEqual([new ResourceID('q', 'x')]);
    expect(
      Mappers.fromAnnotation<V1ConfigMap>(
        'my/name',
        'my/ns',
      )(cm({ name: 'c', namespace: 'x', annotations: { 'my/name': 'q', 'my/ns': 'y' } })),
    ).toEqual([new ResourceID('q', 'y')]);
    expect(
      Mappers.fromLabel<V1ConfigMap>('owner')(cm({ name: 'c', namespace: 'x', labels: { owner: 'l' } })),
    ).toEqual([new ResourceID('l', 'x')]);
    expect(Mappers.fromDefaultAnnotations<V1ConfigMap>()(cm({ name: 'c', namespace: 'x' }))).toEqual([]);
    expect(() => Mappers.fromAnnotation('')).toThrow(TypeError);
  });

  it('[ES-06] built-in mappers index secondaries by primary; custom code only when declared indexable', () => {
    expect(isIndexableMapper(Mappers.fromOwnerReferences(Widget))).toBe(true);
    expect(isIndexableMapper(Mappers.fromLabel('x'))).toBe(true);
    const custom = (c: V1ConfigMap) => [ResourceID.fromResource(c)];
    expect(isIndexableMapper(custom)).toBe(false);
    expect(isIndexableMapper(Mappers.indexable(custom))).toBe(true);
  });
});
