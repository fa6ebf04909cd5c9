/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review S13: pods, pod templates and workloads that kube-apiserver 1.32 refuses with a 422 were
 * stored (pkg/apis/core/validation ValidatePodSpec, pkg/apis/apps/validation, pkg/apis/batch/
 * validation): an operator whose Deployment selector does not match its template's labels, whose
 * container has no image or mounts a volume the pod lacks, or whose Job leaves the restart policy
 * at its default (Always), passed its tests here and failed on a cluster.
 */
const NS = '/namespaces/default';
const DEPLOYMENTS = `/apis/apps/v1${NS}/deployments`;
const container = { name: 'app', image: 'nginx:1.27' };
const template = (
  labels: Record<string, string>,
  spec: Record<string, unknown> = { containers: [container] },
) => ({
  metadata: { labels },
  spec,
});

describe('review s13: workload and pod validation', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  /** The `field: message` of each cause of a 422 (or the status when it is not one). */
  const refused = async (path: string, body: unknown): Promise<string[]> => {
    const r = await call(server, 'POST', path, body);
    if (r.status !== 422) return [`status ${r.status}`];
    return r.json<any>().details.causes.map((c: any) => `${c.field}: ${c.message}`);
  };

  it('[FINDING S13-WV1] a Deployment needs a valid, non-empty selector that selects its template, and replicas of 0 or more', async () => {
    const deployment = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec });
    expect(
      await refused(
        DEPLOYMENTS,
        deployment('mismatch', {
          selector: { matchLabels: { app: 'web' } },
          template: template({ app: 'api' }),
        }),
      ),
    ).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"api"}: `selector` does not match template `labels`',
    ]);
    expect(await refused(DEPLOYMENTS, deployment('none', { template: template({ app: 'web' }) }))).toEqual([
      'spec.selector: Required value',
    ]);
    expect(
      await refused(DEPLOYMENTS, deployment('empty', { selector: {}, template: template({ app: 'web' }) })),
    ).toEqual(['spec.selector: Invalid value: {}: empty selector is invalid for deployment']);
    expect(
      await refused(
        DEPLOYMENTS,
        deployment('operators', {
          selector: {
            matchExpressions: [
              { key: 'app', operator: 'Equals', values: ['web'] },
              { key: 'tier', operator: 'In', values: [] },
              { key: 'canary', operator: 'Exists', values: ['yes'] },
            ],
          },
          template: template({ app: 'web' }),
        }),
      ),
    ).toEqual([
      'spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
      "spec.selector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[2].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
    expect(
      await refused(
        DEPLOYMENTS,
        deployment('negative', {
          replicas: -1,
          selector: { matchLabels: { app: 'web' } },
          template: template({ app: 'web' }),
        }),
      ),
    ).toEqual(['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
    // a selector of expressions that selects the template is fine
    const ok = await call(
      server,
      'POST',
      DEPLOYMENTS,
      deployment('expressions', {
        selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] },
        template: template({ app: 'api', tier: 'x' }),
      }),
    );
    expect(ok.status).toBe(201);
  });

  it('[FINDING S13-WV2] a pod spec needs containers with unique names and images, mounts of its own volumes, valid ports and requests within limits', async () => {
    const causes = await refused(`/api/v1${NS}/pods`, {
      metadata: { name: 'bad' },
      spec: {
        volumes: [
          { name: 'config', configMap: { name: 'c' } },
          { name: 'config', emptyDir: {} },
        ],
        initContainers: [{ name: 'app', image: 'busybox' }],
        containers: [
          {
            name: 'app',
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
            ports: [{ containerPort: 70000 }, { name: 'Web_Port', containerPort: 8080 }],
            resources: { requests: { cpu: '2' }, limits: { cpu: '1' } },
          },
        ],
        restartPolicy: 'Sometimes',
      },
    });
    expect(causes).toEqual([
      'spec.volumes[1].name: Duplicate value: "config"',
      'spec.containers[0].image: Required value',
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[1].name: Invalid value: "Web_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].volumeMounts[0].name: Not found: "data"',
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
      // validateContainers runs before validateInitContainers: the init container's name is the duplicate
      'spec.initContainers[0].name: Duplicate value: "app"',
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ]);
    expect(
      await refused(`/api/v1${NS}/pods`, { metadata: { name: 'empty' }, spec: { containers: [] } }),
    ).toEqual(['spec.containers: Required value']);
    // the same rules inside a workload's template, at its path
    expect(
      await refused(DEPLOYMENTS, {
        metadata: { name: 'no-image' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: template({ app: 'web' }, { containers: [{ name: 'app' }] }),
        },
      }),
    ).toEqual(['spec.template.spec.containers[0].image: Required value']);
  });

  it("[FINDING S13-WV3] a Job's pods restart OnFailure or Never (the pod default Always is refused), in CronJobs too; a manual selector must select the template", async () => {
    const jobs = `/apis/batch/v1${NS}/jobs`;
    expect(await refused(jobs, { metadata: { name: 'always' }, spec: { template: template({}) } })).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ]);
    expect(
      await refused(jobs, {
        metadata: { name: 'manual' },
        spec: {
          manualSelector: true,
          selector: { matchLabels: { job: 'a' } },
          template: template({ job: 'b' }, { containers: [container], restartPolicy: 'Never' }),
        },
      }),
    ).toEqual([
      'spec.template.metadata.labels: Invalid value: {"job":"b"}: `selector` does not match template `labels`',
    ]);
    expect(
      await refused(`/apis/batch/v1${NS}/cronjobs`, {
        metadata: { name: 'nightly' },
        spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: template({}) } } },
      }),
    ).toEqual([
      'spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ]);
    const ok = await call(server, 'POST', jobs, {
      metadata: { name: 'once' },
      spec: { template: template({}, { containers: [container], restartPolicy: 'OnFailure' }) },
    });
    expect(ok.status).toBe(201);
  });

  it('[FINDING S13-WV4] StatefulSets, DaemonSets and ReplicaSets select their templates and restart Always', async () => {
    const apps = `/apis/apps/v1${NS}`;
    expect(
      await refused(`${apps}/statefulsets`, {
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: template({ app: 'other' }),
        },
      }),
    ).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
    ]);
    expect(
      await refused(`${apps}/daemonsets`, {
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          template: template({ app: 'agent' }, { containers: [container], restartPolicy: 'OnFailure' }),
        },
      }),
    ).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]);
    expect(
      await refused(`${apps}/replicasets`, {
        metadata: { name: 'rs' },
        spec: { selector: {}, template: template({ app: 'x' }) },
      }),
    ).toEqual(['spec.selector: Invalid value: {}: empty selector is invalid for deployment']);
  });

  it('[FINDING S13-WV5] a complete workload is accepted: init containers, volumes and their mounts, named ports, requests within limits', async () => {
    const full = await call(server, 'POST', DEPLOYMENTS, {
      metadata: { name: 'complete' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'complete' } },
        template: template(
          { app: 'complete', version: 'v1' },
          {
            volumes: [
              { name: 'config', configMap: { name: 'c' } },
              { name: 'cache', emptyDir: {} },
            ],
            initContainers: [
              { name: 'init', image: 'busybox', volumeMounts: [{ name: 'cache', mountPath: '/cache' }] },
            ],
            containers: [
              {
                name: 'app',
                image: 'nginx:1.27',
                ports: [
                  { name: 'http', containerPort: 8080 },
                  { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
                ],
                volumeMounts: [
                  { name: 'config', mountPath: '/etc/app' },
                  { name: 'cache', mountPath: '/cache' },
                ],
                resources: {
                  requests: { cpu: '500m', memory: '1Gi' },
                  limits: { cpu: '1', memory: '1024Mi' },
                },
              },
            ],
          },
        ),
      },
    });
    expect(full.status).toBe(201);
  });

  it('[FINDING S13-WV6] a Service needs ports (but headless or ExternalName), named when several, in range, with a known protocol', async () => {
    const services = `/api/v1${NS}/services`;
    expect(
      await refused(services, { metadata: { name: 'none' }, spec: { selector: { app: 'web' } } }),
    ).toEqual(['spec.ports: Required value']);
    expect(
      await refused(services, {
        metadata: { name: 'bad' },
        spec: {
          selector: { app: 'web' },
          ports: [
            { port: 80, targetPort: 'Http_Port' },
            { name: 'metrics', port: 0, protocol: 'ICMP' },
            { name: 'metrics', port: 9090, targetPort: 70000 },
          ],
        },
      }),
    ).toEqual([
      'spec.ports[0].name: Required value',
      'spec.ports[0].targetPort: Invalid value: "Http_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[1].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[2].name: Duplicate value: "metrics"',
      'spec.ports[2].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ]);
    expect(await refused(services, { metadata: { name: 'ext' }, spec: { type: 'ExternalName' } })).toEqual([
      'spec.externalName: Required value',
    ]);
    for (const ok of [
      { metadata: { name: 'headless' }, spec: { clusterIP: 'None', selector: { app: 'web' } } },
      { metadata: { name: 'db' }, spec: { type: 'ExternalName', externalName: 'db.example.com' } },
      {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
      },
    ])
      expect((await call(server, 'POST', services, ok)).status).toBe(201);
  });
});
