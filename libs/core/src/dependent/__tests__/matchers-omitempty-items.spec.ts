import { describe, expect, it } from '@jest/globals';
import type { KubernetesResource } from '../../api/resource-type.js';
import { matchesManagedFields } from '../matchers.js';

/**
 * The managed-fields matcher and Go's `omitempty` inside list items (issue 15 §1, F4): a built-in
 * object as kube-apiserver returns it after an apply, next to intents that would change nothing or
 * something.
 */
const fm = 'op';
const entry = (fieldsV1: Record<string, unknown>) => [
  { manager: fm, operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1 },
];
// applied: containers web (env: [], ports: []) and side (env A=a), a volume with items: []
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'd',
    namespace: 'n',
    managedFields: entry({
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"web"}': { '.': {}, 'f:name': {}, 'f:image': {}, 'f:env': {}, 'f:ports': {} },
              'k:{"name":"side"}': {
                '.': {},
                'f:name': {},
                'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
              },
            },
            'f:volumes': {
              'k:{"name":"config"}': {
                '.': {},
                'f:name': {},
                'f:configMap': { 'f:name': {}, 'f:items': {} },
              },
            },
          },
        },
      },
    }),
  },
  spec: {
    replicas: 1,
    template: {
      spec: {
        containers: [
          { name: 'web', image: 'nginx', imagePullPolicy: 'Always' },
          { name: 'side', env: [{ name: 'A', value: 'a' }] },
        ],
        volumes: [{ name: 'config', configMap: { name: 'cm', defaultMode: 420 } }],
      },
    },
  },
} as KubernetesResource;

const intent = (web: Record<string, unknown>, sideEnv: unknown[], items: unknown[] = []) =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'n' },
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'web', image: 'nginx', ...web },
            { name: 'side', env: sideEnv },
          ],
          volumes: [{ name: 'config', configMap: { name: 'cm', items } }],
        },
      },
    },
  }) as KubernetesResource;

describe('managed-fields matcher: omitempty inside list items of built-in kinds', () => {
  it('[DR-10] empty lists inside keyed list items that the object omits match', () => {
    expect(
      matchesManagedFields(deployment, intent({ env: [], ports: [] }, [{ name: 'A', value: 'a' }]), fm),
    ).toBe(true);
  });

  it('[DR-10] a changed or added value inside a list item next to them does not match', () => {
    expect(
      matchesManagedFields(deployment, intent({ env: [], ports: [] }, [{ name: 'A', value: 'b' }]), fm),
    ).toBe(false);
    expect(
      matchesManagedFields(
        deployment,
        intent({ env: [{ name: 'X', value: '1' }] }, [{ name: 'A', value: 'a' }]),
        fm,
      ),
    ).toBe(false);
    expect(
      matchesManagedFields(
        deployment,
        intent({ env: [] }, [{ name: 'A', value: 'a' }], [{ key: 'k', path: 'p' }]),
        fm,
      ),
    ).toBe(false);
    // a list item the object does not have is no empty value
    expect(matchesManagedFields(deployment, intent({}, [{ name: 'A', value: 'a' }, {}]), fm)).toBe(false);
  });

  it('[DR-10] metadata holding only empty maps matches an object that shows none', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        namespace: 'n',
        managedFields: entry({
          'f:data': { 'f:a': {} },
          'f:metadata': { 'f:labels': {}, 'f:annotations': {} },
        }),
      },
      data: { a: '1' },
    } as KubernetesResource;
    const want = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', labels: {}, annotations: {} },
    };
    expect(matchesManagedFields(cm, { ...want, data: { a: '1' } } as KubernetesResource, fm)).toBe(true);
    expect(matchesManagedFields(cm, { ...want, data: { a: '2' } } as KubernetesResource, fm)).toBe(false);
  });

  it('[DR-10] a custom resource keeps {} and [] inside list items as values', () => {
    const cr = {
      apiVersion: 'test.tosdk.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'n', managedFields: entry({ 'f:spec': { 'f:items': {} } }) },
      spec: { items: [{ name: 'a', config: {} }] },
    } as KubernetesResource;
    const want = (items: unknown[]) =>
      ({
        apiVersion: 'test.tosdk.io/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { items },
      }) as KubernetesResource;
    expect(matchesManagedFields(cr, want([{ name: 'a', config: {} }]), fm)).toBe(true);
    expect(matchesManagedFields(cr, want([{ name: 'a' }]), fm)).toBe(false);
    expect(matchesManagedFields(cr, want([{ name: 'a', config: {}, more: [] }]), fm)).toBe(false);
  });

  it('[DR-10] the desired object is not changed by matching, and a Date in it compares as its JSON string', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', managedFields: entry({ 'f:data': { 'f:at': {} } }) },
      data: { at: '2026-01-01T00:00:00.000Z' },
    } as KubernetesResource;
    const want = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', labels: {} },
      data: { at: new Date('2026-01-01T00:00:00.000Z') },
    };
    const before = JSON.stringify(want);
    expect(matchesManagedFields(cm, want as unknown as KubernetesResource, fm)).toBe(true);
    expect(JSON.stringify(want)).toBe(before);
    expect(want.metadata).toEqual({ name: 'c', labels: {} });
  });

  it('[DR-10] an empty struct is a value even at a name that is a Go map in another kind', () => {
    // IngressClass spec.parameters and RuntimeClass overhead are structs (kube keeps `{}`), while a
    // StorageClass's parameters and a Pod's overhead are maps: adding `{}` must be applied
    const object = (apiVersion: string, kind: string, fields: Record<string, unknown>, body: object) =>
      ({
        apiVersion,
        kind,
        metadata: {
          name: 'x',
          managedFields: [
            { manager: fm, operation: 'Apply', apiVersion, fieldsType: 'FieldsV1', fieldsV1: fields },
          ],
        },
        ...body,
      }) as KubernetesResource;
    const ingressClass = object(
      'networking.k8s.io/v1',
      'IngressClass',
      { 'f:spec': { 'f:controller': {} } },
      { spec: { controller: 'example.com/c' } },
    );
    const wantIngressClass = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'x' },
      spec: { controller: 'example.com/c', parameters: {} },
    } as KubernetesResource;
    expect(matchesManagedFields(ingressClass, wantIngressClass, fm)).toBe(false);
    const runtimeClass = object('node.k8s.io/v1', 'RuntimeClass', { 'f:handler': {} }, { handler: 'runc' });
    const wantRuntimeClass = {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'x' },
      handler: 'runc',
      overhead: {},
    } as KubernetesResource;
    expect(matchesManagedFields(runtimeClass, wantRuntimeClass, fm)).toBe(false);
    // the maps that are maps everywhere still match when empty
    expect(
      matchesManagedFields(
        runtimeClass,
        {
          ...wantRuntimeClass,
          overhead: undefined,
          metadata: { name: 'x', labels: {} },
        } as KubernetesResource,
        fm,
      ),
    ).toBe(true);
  });
});
