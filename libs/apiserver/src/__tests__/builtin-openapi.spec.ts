/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

const DEP = '/apis/apps/v1/namespaces/default/deployments';
const deployment = (name: string, extra: Record<string, unknown> = {}): unknown => ({
  metadata: { name },
  spec: {
    selector: { matchLabels: { a: name } },
    template: {
      metadata: { labels: { a: name } },
      spec: { containers: [{ name: 'c', image: 'i', ...extra }] },
    },
    ...(Object.keys(extra).length > 0 ? { bogus: 1 } : {}),
  },
});

describe('KubeApiServer OpenAPI of built-in kinds', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('/openapi/v3/apis/apps/v1 has the Deployment schema with its referenced types, required fields and descriptions', async () => {
    const doc = (await call(server, 'GET', '/openapi/v3/apis/apps/v1')).json<any>();
    const schemas = doc.components.schemas;
    const dep = schemas['io.k8s.api.apps.v1.Deployment'];
    expect(dep['x-kubernetes-group-version-kind']).toEqual([
      { group: 'apps', version: 'v1', kind: 'Deployment' },
    ]);
    const specRef = dep.properties.spec.$ref ?? dep.properties.spec.allOf?.[0]?.$ref;
    expect(specRef).toBe('#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec');
    const spec = schemas['io.k8s.api.apps.v1.DeploymentSpec'];
    expect(spec.required).toEqual(expect.arrayContaining(['selector', 'template']));
    expect(spec.properties.replicas).toMatchObject({ type: 'integer', format: 'int32' });
    expect(spec.properties.replicas.description).toContain('Number of desired pods');
    expect(schemas['io.k8s.api.core.v1.PodSpec'].properties.containers.type).toBe('array');
    expect(schemas['io.k8s.api.core.v1.Container'].properties.ports.items).toEqual({
      $ref: '#/components/schemas/io.k8s.api.core.v1.ContainerPort',
    });
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.labels).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    const core = (await call(server, 'GET', '/openapi/v3/api/v1')).json<any>().components.schemas;
    expect(core['io.k8s.api.core.v1.Event']['x-kubernetes-group-version-kind']).toEqual([
      { group: '', version: 'v1', kind: 'Event' },
    ]);
    expect(core['io.k8s.api.core.v1.ServicePort'].properties.targetPort).toMatchObject({
      'x-kubernetes-int-or-string': true,
    });
  });

  it('fieldValidation=Strict rejects unknown fields of built-in kinds with kube-apiserver’s message', async () => {
    const r = await call(
      server,
      'POST',
      `${DEP}?fieldValidation=Strict`,
      deployment('strict', { nope: true }),
    );
    expect(r.status).toBe(400);
    expect(r.json<any>().message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].nope", unknown field "spec.bogus"',
    );
    expect((await call(server, 'GET', `${DEP}/strict`)).status).toBe(404);
  });

  it('by default (Warn) unknown fields are dropped with a Warning header; Ignore drops them silently', async () => {
    const r = await call(server, 'POST', DEP, deployment('warn', { nope: true }));
    expect(r.status).toBe(201);
    expect(String(r.headers.warning)).toContain('unknown field \\"spec.bogus\\"');
    const stored = (await call(server, 'GET', `${DEP}/warn`)).json<any>();
    expect(stored.spec.bogus).toBeUndefined();
    expect(stored.spec.template.spec.containers[0].nope).toBeUndefined();
    const ignored = await call(
      server,
      'POST',
      `${DEP}?fieldValidation=Ignore`,
      deployment('ign', { nope: true }),
    );
    expect(ignored.status).toBe(201);
    expect(ignored.headers.warning).toBeUndefined();
    // known fields, maps and int-or-string values are not reported
    const ok = await call(server, 'POST', `${DEP}?fieldValidation=Strict`, {
      metadata: { name: 'ok', labels: { any: 'key' }, annotations: { 'a/b': 'c' } },
      spec: {
        selector: { matchLabels: { a: 'ok' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } },
        template: {
          metadata: { labels: { a: 'ok' } },
          spec: {
            containers: [
              {
                name: 'c',
                image: 'i',
                resources: { limits: { cpu: '1' } },
                env: [{ name: 'A', value: 'b' }],
              },
            ],
          },
        },
      },
    });
    expect(ok.status).toBe(201);
  });
});
