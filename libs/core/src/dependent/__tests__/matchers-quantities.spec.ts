import { describe, expect, it } from '@jest/globals';
import type { KubernetesResource } from '../../api/resource-type.js';
import { matchesManagedFields } from '../matchers.js';

/**
 * An actual object as the API server returns it after our apply: `value` at `path`, owned by our
 * manager (the whole spec is in our fields).
 */
function actualWith(apiVersion: string, kind: string, spec: object): KubernetesResource {
  return {
    apiVersion,
    kind,
    metadata: {
      name: 'x',
      namespace: 'n',
      managedFields: [
        { manager: 'me', operation: 'Apply', apiVersion, fieldsType: 'FieldsV1', fieldsV1: ownAll(spec) },
      ],
    },
    spec,
  } as KubernetesResource;
}

/** fieldsV1 owning every field of `spec` (lists by index are not needed: lists are owned whole here). */
function ownAll(spec: object): object {
  const walk = (v: unknown): object => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).map(([k, c]) => [`f:${k}`, walk(c)]));
  };
  return { 'f:spec': walk(spec) };
}

const desired = (apiVersion: string, kind: string, spec: object): KubernetesResource =>
  ({ apiVersion, kind, metadata: { name: 'x', namespace: 'n' }, spec }) as KubernetesResource;

const podSpec = (resources: object, extra: object = {}) => ({
  containers: [{ name: 'c', image: 'i' }],
  resources,
  ...extra,
});

describe('[DR-10] the managed-fields matcher compares quantities kube-apiserver canonicalizes by value', () => {
  // each case: the desired spec as written, and the spec as kube-apiserver returns it (canonical)
  const cases: Array<[string, string, string, object, object]> = [
    [
      'pod-level resources of a Deployment',
      'apps/v1',
      'Deployment',
      { template: { spec: podSpec({ limits: { cpu: '2000m', memory: '1024Mi' } }) } },
      { template: { spec: podSpec({ limits: { cpu: '2', memory: '1Gi' } }) } },
    ],
    [
      'pod overhead of a Pod',
      'v1',
      'Pod',
      podSpec({}, { overhead: { cpu: '250m', memory: '2048Ki' } }),
      podSpec({}, { overhead: { cpu: '250m', memory: '2Mi' } }),
    ],
    [
      'containers of a CronJob',
      'batch/v1',
      'CronJob',
      {
        schedule: '* * * * *',
        jobTemplate: {
          spec: {
            template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '0.5' } } }] } },
          },
        },
      },
      {
        schedule: '* * * * *',
        jobTemplate: {
          spec: {
            template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '500m' } } }] } },
          },
        },
      },
    ],
    [
      'containers of a ReplicationController',
      'v1',
      'ReplicationController',
      { template: { spec: { containers: [{ name: 'c', resources: { limits: { memory: '1024Mi' } } }] } } },
      { template: { spec: { containers: [{ name: 'c', resources: { limits: { memory: '1Gi' } } }] } } },
    ],
    [
      'a ResourceQuota',
      'v1',
      'ResourceQuota',
      { hard: { 'requests.cpu': '1000m', 'limits.memory': '1024Mi', pods: '10' } },
      { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi', pods: '10' } },
    ],
    [
      'a LimitRange',
      'v1',
      'LimitRange',
      {
        limits: [
          {
            type: 'Container',
            max: { cpu: '2000m' },
            default: { memory: '512Mi' },
            defaultRequest: { cpu: '0.1' },
          },
        ],
      },
      {
        limits: [
          {
            type: 'Container',
            max: { cpu: '2' },
            default: { memory: '512Mi' },
            defaultRequest: { cpu: '100m' },
          },
        ],
      },
    ],
  ];

  it.each(cases)(
    '%s: the canonical form matches; another value does not',
    (_name, apiVersion, kind, want, got) => {
      expect(
        matchesManagedFields(actualWith(apiVersion, kind, got), desired(apiVersion, kind, want), 'me'),
      ).toBe(true);
      // a different value is still a mismatch (the normalisation compares values, it does not ignore them)
      const changed = JSON.parse(JSON.stringify(got).replace(/"(2|1Gi|2Mi|500m|1|100m)"/, '"3"')) as object;
      expect(
        matchesManagedFields(actualWith(apiVersion, kind, changed), desired(apiVersion, kind, want), 'me'),
      ).toBe(false);
    },
  );

  it('a custom resource of kind Deployment in another group is compared as written (the server keeps its strings)', () => {
    const spec = (memory: string) => ({
      template: { spec: { containers: [{ name: 'c', resources: { limits: { memory } } }] } },
    });
    expect(
      matchesManagedFields(
        actualWith('example.com/v1', 'Deployment', spec('1Gi')),
        desired('example.com/v1', 'Deployment', spec('1024Mi')),
        'me',
      ),
    ).toBe(false);
  });

  it('a quantity with an exponent out of range is not a quantity: no throw, compared as written', () => {
    const spec = (cpu: string) => ({
      template: { spec: { containers: [{ name: 'c', resources: { limits: { cpu } } }] } },
    });
    const actual = actualWith('apps/v1', 'Deployment', spec('1'));
    expect(matchesManagedFields(actual, desired('apps/v1', 'Deployment', spec('1e999999999')), 'me')).toBe(
      false,
    );
    expect(matchesManagedFields(actual, desired('apps/v1', 'Deployment', spec('1e0')), 'me')).toBe(true);
  });
});
