import { describe, expect, it } from '@jest/globals';
import type { KubernetesResource } from '../../api/resource-type.js';
import { matchesManagedFields } from '../matchers.js';

/**
 * The matchers judge intents a reconciler builds, which may hold what no schema allows. Whatever
 * they hold, the managed-fields matcher answers (never throws a raw TypeError out of a
 * reconciliation): "no match" where it cannot prove the apply changes nothing, so the apply is sent
 * and the API server's answer decides (H24-3: a StatefulSet's volumeClaimTemplates).
 */
const statefulSet = (spec: unknown, managedFields: unknown): KubernetesResource =>
  ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 's', namespace: 'n', managedFields },
    spec,
  }) as unknown as KubernetesResource;

const ours = [
  {
    manager: 'm',
    operation: 'Apply',
    apiVersion: 'apps/v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:volumeClaimTemplates': {} } },
  },
];

const answer = (actual: KubernetesResource, desired: KubernetesResource): string => {
  try {
    return String(matchesManagedFields(actual, desired, 'm'));
  } catch (e) {
    return `threw ${String(e)}`;
  }
};

describe('the managed-fields matcher on malformed intents and objects', () => {
  it.each([
    ['a map', {}],
    ['a null item', [null]],
    ['a number item', [1]],
    ['a list item', [[]]],
    ['a string', 'x'],
    ['null', null],
  ])('[DR-10] volumeClaimTemplates as %s: no match, no throw', (_what, volumeClaimTemplates) => {
    const actual = statefulSet({ replicas: 1, volumeClaimTemplates: [] }, ours);
    expect(answer(actual, statefulSet({ replicas: 1, volumeClaimTemplates }, undefined))).toBe('false');
  });

  it('[DR-10] a spec that is no object, on either side: no throw', () => {
    expect(answer(statefulSet('x', ours), statefulSet({ replicas: 1 }, undefined))).toBe('false');
    expect(answer(statefulSet({ replicas: 1 }, ours), statefulSet(null, undefined))).toBe('false');
  });

  it('[DR-10] a well-formed template still matches what the server filled in', () => {
    const template = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } };
    const served = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      ...template,
      status: { phase: 'Pending' },
    };
    const actual = statefulSet({ replicas: 1, volumeClaimTemplates: [served] }, ours);
    expect(answer(actual, statefulSet({ replicas: 1, volumeClaimTemplates: [template] }, undefined))).toBe(
      'true',
    );
  });

  it('[DR-10] managedFields that are no list, or hold a null entry: read past, no throw', () => {
    const desired = statefulSet({ replicas: 1 }, undefined);
    // no list: no apply entry of ours, so the apply is sent
    expect(answer(statefulSet({ replicas: 1 }, { manager: 'm' }), desired)).toBe('false');
    // a null entry is skipped; ours after it decides (replicas owned and equal)
    expect(answer(statefulSet({ replicas: 1 }, [null, ...ours]), desired)).toBe('true');
    expect(answer(statefulSet({ replicas: 2 }, [null, ...ours]), desired)).toBe('false');
  });
});
