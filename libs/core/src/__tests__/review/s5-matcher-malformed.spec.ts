import { describe, expect, it } from '@jest/globals';
import type { KubernetesResource } from '../../api/resource-type.js';
import { matchesManagedFields } from '../../dependent/matchers.js';

/**
 * Adversarial review (session 5), the same class as H24-2 (3d7ab53 fixed it for a Secret's
 * stringData): the matcher's desired-side sanitizing of a StatefulSet's volumeClaimTemplates assumes
 * a list of objects. An intent that holds something else there (a map, a null item, a scalar item,
 * a string) makes matchesManagedFields throw a raw TypeError (out of resourceOperations().
 * serverSideApply or a dependent's reconcile, on every reconciliation once the object is cached)
 * instead of answering "no match", so that the apply is sent and the API server's answer (a 4xx
 * naming the field, or the value it stores) decides.
 */
const actual = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: {
    name: 's',
    namespace: 'n',
    managedFields: [
      {
        manager: 'm',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ],
  },
  spec: { replicas: 1 },
} as unknown as KubernetesResource;

function answer(volumeClaimTemplates: unknown): string {
  const desired = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 's', namespace: 'n' },
    spec: { replicas: 1, volumeClaimTemplates },
  } as unknown as KubernetesResource;
  try {
    return String(matchesManagedFields(actual, desired, 'm'));
  } catch (e) {
    return `threw ${String(e)}`;
  }
}

describe('review s5: the matcher never throws on a malformed intent', () => {
  it('[FINDING H24-3] a StatefulSet intent whose volumeClaimTemplates is a map, holds a null, a number or is a string answers "no match" instead of throwing', () => {
    expect([{}, [null], [1], 'x'].map((v) => `${JSON.stringify(v)}: ${answer(v)}`)).toEqual([
      '{}: false',
      '[null]: false',
      '[1]: false',
      '"x": false',
    ]);
  });

  it('a well-formed claim template the object lacks is no match (guard)', () => {
    expect(answer([{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }])).toBe('false');
  });
});
