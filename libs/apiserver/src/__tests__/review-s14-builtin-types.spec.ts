/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review S14: kube-apiserver decodes a built-in object into its Go struct before anything else, and
 * encoding/json (sigs.k8s.io/json) refuses a value of the wrong JSON type with 400 (`Deployment in
 * version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field
 * DeploymentSpec.spec.replicas of type int32`). Our server stored such objects: an operator that
 * wrote `env: [{ name: 'PORT', value: 8080 }]`, `replicas: someString` or a ConfigMap value that is
 * a number passed its tests here and failed on a cluster.
 */
const NS = '/namespaces/default';
const DEPLOYMENTS = `/apis/apps/v1${NS}/deployments`;
const deployment = (
  name: string,
  spec: Record<string, unknown> = {},
  container: Record<string, unknown> = {},
) => ({
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27', ...container }] },
    },
    ...spec,
  },
});

describe('review s14: values of the wrong JSON type in built-in objects', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  const answer = async (method: string, path: string, body: unknown, contentType?: string) => {
    const r = await call(server, method, path, body, contentType ? { contentType } : {});
    return `${r.status} ${r.json<any>().message}`;
  };

  it("[FINDING S14-BT1] a create with a value its Go field cannot take is a 400 with encoding/json's message, before validation", async () => {
    expect(
      await answer('POST', `/api/v1${NS}/configmaps`, { metadata: { name: 'cm' }, data: { port: 8080 } }),
    ).toBe(
      '400 ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
    expect(await answer('POST', DEPLOYMENTS, deployment('d1', { replicas: '2' }))).toBe(
      '400 Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    expect(
      await answer('POST', DEPLOYMENTS, deployment('d2', {}, { env: [{ name: 'PORT', value: 8080 }] })),
    ).toBe(
      '400 Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type string',
    );
    expect(
      await answer('POST', DEPLOYMENTS, deployment('d3', {}, { ports: [{ containerPort: '8080' }] })),
    ).toBe(
      '400 Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    );
    expect(
      await answer('POST', `/api/v1${NS}/pods`, {
        metadata: { name: 'p' },
        spec: { containers: { name: 'app', image: 'nginx' } },
      }),
    ).toBe(
      '400 Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container',
    );
    expect(
      await answer('POST', `/api/v1${NS}/services`, {
        metadata: { name: 's' },
        spec: { ports: [{ port: 80.5 }] },
      }),
    ).toBe(
      '400 Service in version "v1" cannot be handled as a Service: json: cannot unmarshal number 80.5 into Go struct field ServicePort.spec.ports.port of type int32',
    );
    expect(
      await answer('POST', `/api/v1${NS}/services`, {
        metadata: { name: 's2' },
        spec: { ports: [{ port: 80, targetPort: true }] },
      }),
    ).toBe(
      '400 Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
    expect(
      await answer('POST', `/api/v1${NS}/configmaps`, { metadata: { name: 'l', labels: { tier: 1 } } }),
    ).toBe(
      '400 ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    );
    // nothing was stored
    expect((await call(server, 'GET', `${DEPLOYMENTS}/d1`)).status).toBe(404);
  });

  it('[FINDING S14-BT1] values Go takes stay accepted: nulls, int-or-string ports either way, quantities as numbers', async () => {
    const r = await call(
      server,
      'POST',
      DEPLOYMENTS,
      deployment(
        'ok',
        { replicas: null, revisionHistoryLimit: 3 },
        {
          ports: [{ containerPort: 8080, name: 'http' }],
          resources: { limits: { cpu: 2, memory: '1Gi' }, requests: { cpu: 0.5 } },
          env: [{ name: 'A', value: '1' }],
        },
      ),
    );
    expect(r.status).toBe(201);
    expect(r.json<any>().spec.template.spec.containers[0].resources.limits.cpu).toBe('2');
    const s = await call(server, 'POST', `/api/v1${NS}/services`, {
      metadata: { name: 'named' },
      spec: {
        selector: { app: 'ok' },
        ports: [
          { name: 'a', port: 80, targetPort: 'http' },
          { name: 'b', port: 81, targetPort: 8081 },
        ],
      },
    });
    expect(s.status).toBe(201);
  });

  it('[FINDING S14-BT2] an update, a merge patch and a server-side apply with a mistyped value are refused as kube refuses each', async () => {
    const created = await call(server, 'POST', DEPLOYMENTS, deployment('u'));
    expect(created.status).toBe(201);
    const current = created.json<any>();
    // PUT: the same decoding as a create
    expect(
      await answer('PUT', `${DEPLOYMENTS}/u`, { ...current, spec: { ...current.spec, paused: 'yes' } }),
    ).toBe(
      '400 Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool',
    );
    // a merge patch: kube's patcher wraps the decode error of the patched object in a 422 on `patch`
    const merged = await call(
      server,
      'PATCH',
      `${DEPLOYMENTS}/u`,
      { spec: { replicas: '3' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(merged.status).toBe(422);
    const cause = merged.json<any>().details.causes[0];
    expect(cause.field).toBe('patch');
    expect(cause.message).toMatch(
      /^Invalid value: ".*": json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32$/,
    );
    // server-side apply: structured-merge-diff refuses the typed patch object (a 500, as kube answers)
    const applied = await call(
      server,
      'PATCH',
      `${DEPLOYMENTS}/u?fieldManager=test`,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'u' }, spec: { replicas: '3' } },
      { contentType: 'application/apply-patch+yaml' },
    );
    expect(applied.status).toBe(500);
    expect(applied.json<any>().message).toBe(
      'failed to create typed patch object (default/u; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string',
    );
    // the object is as it was
    const after = await call(server, 'GET', `${DEPLOYMENTS}/u`);
    expect(after.json<any>().metadata.resourceVersion).toBe(current.metadata.resourceVersion);
  });
  it("[FINDING S14-BT3] a strategic merge patch with a mistyped value is a 422 on patch with the unstructured converter's words and the patch as Go prints it", async () => {
    const created = await call(server, 'POST', DEPLOYMENTS, deployment('smp'));
    expect(created.status).toBe(201);
    const smp = (body: unknown) =>
      call(server, 'PATCH', `${DEPLOYMENTS}/smp`, body, {
        contentType: 'application/strategic-merge-patch+json',
      });
    const replicas = await smp({ spec: { replicas: '3' } });
    expect(replicas.status).toBe(422);
    expect(replicas.json<any>().message).toBe(
      ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:3]]": unrecognized type: int32',
    );
    const env = await smp({
      spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'PORT', value: 8080 }] }] } } },
    });
    expect(env.status).toBe(422);
    expect(env.json<any>().details.causes[0].message).toBe(
      'Invalid value: "map[spec:map[template:map[spec:map[containers:[map[env:[map[name:PORT value:8080]] name:app]]]]]]": cannot convert int64 to string',
    );
    // an int-or-string decodes itself: the converter hands it JSON, and encoding/json names no field
    const port = await smp({
      spec: { template: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 80 }] }] } } },
    });
    expect(port.status).toBe(200);
    const probe = await smp({
      spec: {
        template: {
          spec: { containers: [{ name: 'app', readinessProbe: { httpGet: { port: 80.5 } } }] },
        },
      },
    });
    expect(probe.json<any>().details.causes[0].message).toMatch(
      /: json: cannot unmarshal number 80\.5 into Go value of type int32$/,
    );
    const paused = await smp({ spec: { paused: 'yes' } });
    expect(paused.json<any>().details.causes[0].message).toBe(
      'Invalid value: "map[spec:map[paused:yes]]": unrecognized type: bool',
    );
  });
});
