import { describe, expect, it } from '@jest/globals';
import type { KubernetesResource } from '../../api/resource-type.js';
import { matchesManagedFields } from '../matchers.js';

/**
 * Review (session 11): quantity fields of built-in kinds the in-memory API server does not serve (or
 * does not rewrite), checked against the object as kube-apiserver returns it after our apply. Every
 * `resource.Quantity` field of k8s.io/api is decoded by `Quantity.UnmarshalJSON` and written back in
 * its canonical form, so the managed-fields matcher must compare them by value, or the dependent
 * applies on every reconcile.
 */

/** fieldsV1 owning every member of `obj` but apiVersion/kind/metadata (lists owned whole). */
function ownAll(obj: Record<string, unknown>): object {
  const walk = (v: unknown): object => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).map(([k, c]) => [`f:${k}`, walk(c)]));
  };
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = obj;
  return walk(rest);
}

/** `stored` (the body as kube-apiserver returns it) with our manager's apply entry owning all of it. */
function asStored(stored: Record<string, unknown>): KubernetesResource {
  const apiVersion = stored['apiVersion'] as string;
  return {
    ...stored,
    metadata: {
      name: 'x',
      namespace: 'n',
      managedFields: [
        { manager: 'me', operation: 'Apply', apiVersion, fieldsType: 'FieldsV1', fieldsV1: ownAll(stored) },
      ],
    },
  };
}

const obj = (apiVersion: string, kind: string, body: object): Record<string, unknown> => ({
  apiVersion,
  kind,
  metadata: { name: 'x', namespace: 'n' },
  ...body,
});

const hpa = (averageValue: string, value: string, tolerance: string) =>
  obj('autoscaling/v2', 'HorizontalPodAutoscaler', {
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue } } },
        {
          type: 'External',
          external: { metric: { name: 'queue' }, target: { type: 'Value', value } },
        },
      ],
      behavior: { scaleUp: { tolerance } },
    },
  });

const claim = (request: string) =>
  obj('resource.k8s.io/v1', 'ResourceClaim', {
    spec: {
      devices: {
        requests: [
          {
            name: 'gpu',
            exactly: { deviceClassName: 'gpu', capacity: { requests: { memory: request } } },
          },
        ],
      },
    },
  });

const claimTemplate = (request: string) =>
  obj('resource.k8s.io/v1', 'ResourceClaimTemplate', {
    spec: {
      spec: {
        devices: {
          requests: [
            {
              name: 'gpu',
              firstAvailable: [
                { name: 'big', deviceClassName: 'gpu', capacity: { requests: { memory: request } } },
              ],
            },
          ],
        },
      },
    },
  });

const slice = (value: string, step: string, counter: string) =>
  obj('resource.k8s.io/v1', 'ResourceSlice', {
    spec: {
      driver: 'gpu.example.com',
      pool: { name: 'p', generation: 1, resourceSliceCount: 1 },
      allNodes: true,
      sharedCounters: [{ name: 'mem', counters: { memory: { value: counter } } }],
      devices: [
        {
          name: 'gpu-0',
          capacity: {
            memory: {
              value,
              requestPolicy: { default: '1024Mi', validRange: { min: '1024Mi', step } },
            },
          },
          consumesCounters: [{ counterSet: 'mem', counters: { memory: { value: counter } } }],
        },
      ],
    },
  });

describe('review s11: quantity fields of built-in kinds', () => {
  // [desired as written, as kube-apiserver returns it, a different value]
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]> = [
    [
      'PodTemplate template.spec',
      obj('v1', 'PodTemplate', {
        template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '2000m' } } }] } },
      }),
      obj('v1', 'PodTemplate', {
        template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } },
      }),
      obj('v1', 'PodTemplate', {
        template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] } },
      }),
    ],
    [
      'HorizontalPodAutoscaler metric targets and tolerance',
      hpa('500m', '1000', '0.05'),
      hpa('500m', '1k', '50m'),
      hpa('500m', '1k', '100m'),
    ],
    [
      'RuntimeClass overhead.podFixed',
      obj('node.k8s.io/v1', 'RuntimeClass', {
        handler: 'kata',
        overhead: { podFixed: { memory: '131072Ki' } },
      }),
      obj('node.k8s.io/v1', 'RuntimeClass', { handler: 'kata', overhead: { podFixed: { memory: '128Mi' } } }),
      obj('node.k8s.io/v1', 'RuntimeClass', { handler: 'kata', overhead: { podFixed: { memory: '256Mi' } } }),
    ],
    [
      'CSIStorageCapacity capacity and maximumVolumeSize',
      obj('storage.k8s.io/v1', 'CSIStorageCapacity', {
        storageClassName: 'fast',
        capacity: '1024Gi',
        maximumVolumeSize: '0.5Ti',
      }),
      obj('storage.k8s.io/v1', 'CSIStorageCapacity', {
        storageClassName: 'fast',
        capacity: '1Ti',
        maximumVolumeSize: '512Gi',
      }),
      obj('storage.k8s.io/v1', 'CSIStorageCapacity', {
        storageClassName: 'fast',
        capacity: '1Ti',
        maximumVolumeSize: '1Ti',
      }),
    ],
    ['ResourceClaim device capacity requests', claim('4096Mi'), claim('4Gi'), claim('8Gi')],
    [
      'ResourceClaimTemplate alternatives capacity requests',
      claimTemplate('4096Mi'),
      claimTemplate('4Gi'),
      claimTemplate('2Gi'),
    ],
    [
      'ResourceSlice device capacity, request policy and counters',
      slice('16384Mi', '0.5Gi', '16384Mi'),
      slice('16Gi', '512Mi', '16Gi'),
      slice('16Gi', '512Mi', '8Gi'),
    ],
  ];

  it.each(cases)(
    '[FINDING S11-CQ2] %s written in another form than kube stores it was seen as a change, so the dependent applied on every reconcile',
    (_name, desired, stored, different) => {
      expect(matchesManagedFields(asStored(stored), desired as KubernetesResource, 'me')).toBe(true);
      // a different value is still a change
      expect(matchesManagedFields(asStored(different), desired as KubernetesResource, 'me')).toBe(false);
    },
  );
});
