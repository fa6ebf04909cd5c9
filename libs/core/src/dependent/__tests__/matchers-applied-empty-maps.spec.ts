import { describe, expect, it } from '@jest/globals';
import type { KubernetesResource } from '../../api/resource-type.js';
import { matchesManagedFields } from '../matchers.js';

/**
 * kube-apiserver (structured-merge-diff) records an applied empty map as a leaf of the applier's
 * field set (`f:labels: {}`) and merges it into the live map: members another manager set there
 * stay, and stay theirs. So an intent `labels: {}` over someone else's labels changes nothing and
 * must match (H19's finding: it cost one no-op apply per reconcile); an intent that adds a member
 * there is a change.
 */
describe('managed-fields matcher: an applied empty map over members of other managers', () => {
  const fieldManager = 'op';
  const actual = (): KubernetesResource & { data?: Record<string, string> } => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'n',
      resourceVersion: '7',
      labels: { team: 'x' },
      managedFields: [
        {
          manager: 'admin',
          operation: 'Update',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:team': {} } } },
        },
        {
          manager: fieldManager,
          operation: 'Apply',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': {}, 'f:metadata': { 'f:labels': {} } },
        },
      ],
    },
    data: { a: '1' },
  });
  const intent = (labels: Record<string, string>, data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'n', labels },
    data,
  });

  it('[DR-10] labels: {} and data: {} match although others set members there', () => {
    expect(matchesManagedFields(actual(), intent({}, {}), fieldManager)).toBe(true);
  });

  it('[DR-10] adding a member to such a map, or a value of theirs, is a change', () => {
    expect(matchesManagedFields(actual(), intent({ mine: 'y' }, {}), fieldManager)).toBe(false);
    expect(matchesManagedFields(actual(), intent({}, { b: '2' }), fieldManager)).toBe(false);
    expect(matchesManagedFields(actual(), intent({ team: 'y' }, {}), fieldManager)).toBe(false);
  });

  it('[DR-10] the same on a custom resource (structured-merge-diff merges {} into its maps too)', () => {
    const gadget = { ...actual(), apiVersion: 'test.tosdk.io/v1', kind: 'Gadget' };
    const want = (labels: Record<string, string>, data: Record<string, string>) => ({
      ...intent(labels, data),
      apiVersion: 'test.tosdk.io/v1',
      kind: 'Gadget',
    });
    expect(matchesManagedFields(gadget, want({}, {}), fieldManager)).toBe(true);
    expect(matchesManagedFields(gadget, want({ mine: 'y' }, {}), fieldManager)).toBe(false);
    expect(matchesManagedFields(gadget, want({}, { b: '2' }), fieldManager)).toBe(false);
  });

  it('[DR-10] dropping the empty map from the intent is a change (our leaf would go)', () => {
    const { labels: _dropped, ...metadata } = intent({}, {}).metadata;
    void _dropped;
    expect(matchesManagedFields(actual(), { ...intent({}, {}), metadata }, fieldManager)).toBe(false);
  });
});
