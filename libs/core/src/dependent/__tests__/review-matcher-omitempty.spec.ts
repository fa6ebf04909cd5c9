import { describe, expect, it } from '@jest/globals';
import type { KubernetesResource } from '../../api/resource-type.js';
import { matchesManagedFields } from '../matchers.js';

/**
 * Adversarial review of a0be387 (an empty map is a value in the managed-fields matcher): on a real
 * kube-apiserver, built-in kinds serialise empty maps with Go's `omitempty`, so an applied
 * `data: {}` or `labels: {}` is not in the object the informer caches. Such an intent changes nothing
 * on the next apply (the server answers with the same resourceVersion), so it must keep matching, or
 * every reconciliation sends a needless apply (issue 15 §1: zero needless writes). Custom resources
 * keep their empty maps, so there `{}` stays a value (see review-ssa-skip's empty-map test).
 */
describe('review: managed-fields matcher and omitempty maps of built-in kinds', () => {
  const fieldManager = 'op';
  // a ConfigMap as kube-apiserver returns it after an apply of { labels: {}, data: {} } plus a label
  const actual: KubernetesResource & { data?: Record<string, string> } = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'n',
      resourceVersion: '7',
      annotations: { keep: 'x' },
      managedFields: [
        {
          manager: fieldManager,
          operation: 'Apply',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': {}, 'f:metadata': { 'f:labels': {}, 'f:annotations': { 'f:keep': {} } } },
        },
      ],
    },
  };

  // H8 finding F4 (/tmp/tosdk/H8-findings.md): failed from a0be387 until the fix
  it('[DR-10] an intent with empty data and labels maps matches a built-in object that omits them (the apply would change nothing)', () => {
    const intent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'n', labels: {}, annotations: { keep: 'x' } },
      data: {},
    };
    expect(matchesManagedFields(actual, intent as KubernetesResource, fieldManager)).toBe(true);
  });

  it('[DR-10] a real difference next to the empty maps still does not match', () => {
    const intent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'n', labels: {}, annotations: { keep: 'y' } },
      data: {},
    };
    expect(matchesManagedFields(actual, intent as KubernetesResource, fieldManager)).toBe(false);
  });

  describe('a kind without a status subresource (the main apply owns f:status)', () => {
    const owner = (fieldsV1: Record<string, unknown>) => ({
      apiVersion: 'review.tosdk.io/v1',
      kind: 'Plain',
      metadata: {
        name: 'p',
        namespace: 'n',
        managedFields: [
          {
            manager: fieldManager,
            operation: 'Apply',
            apiVersion: 'review.tosdk.io/v1',
            fieldsType: 'FieldsV1',
            fieldsV1,
          },
        ],
      },
      spec: { value: 'fixed' },
      status: { observed: 'one' },
    });
    const actual = owner({
      'f:spec': { 'f:value': {} },
      'f:status': { 'f:observed': {} },
    }) as KubernetesResource;
    const desired = (status?: object) =>
      ({
        apiVersion: 'review.tosdk.io/v1',
        kind: 'Plain',
        metadata: { name: 'p', namespace: 'n' },
        spec: { value: 'fixed' },
        ...(status ? { status } : {}),
      }) as KubernetesResource;

    it('[DR-10] the same status matches', () => {
      expect(matchesManagedFields(actual, desired({ observed: 'one' }), fieldManager)).toBe(true);
    });

    // H8 findings F5/F6, SSA dependents' side (/tmp/tosdk/H8-findings.md): failed before the matcher
    // compared an owned status
    it('[DR-10] a changed status does not match (the apply would change it)', () => {
      expect(matchesManagedFields(actual, desired({ observed: 'two' }), fieldManager)).toBe(false);
    });

    it('[DR-10] a desired state without the status we own does not match (the apply would drop it)', () => {
      expect(matchesManagedFields(actual, desired(), fieldManager)).toBe(false);
    });
  });
});
