// Review S11 (finalizer names): kube-apiserver 1.32 refuses, on the built-in kinds whose validation goes
// through pkg/apis/core/validation ValidateObjectMeta / ValidateObjectMetaUpdate (core, apps, batch,
// networking.k8s.io, rbac.authorization.k8s.io), a metadata.finalizers entry without a domain that is no
// standard finalizer; on custom resources it only warns (apiextensions-apiserver v0.32.1
// pkg/registry/customresource strategy.go generateWarningsFromObj, validator.go validateKubeFinalizerName).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';

const CM = '/api/v1/namespaces/default/configmaps';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const MERGE = { contentType: 'application/merge-patch+json' };
const NEITHER = 'name is neither a standard finalizer name nor is it fully qualified';

interface StatusBody {
  message: string;
  details?: { causes?: { reason: string; field: string; message: string }[] };
}

function warnings(headers: Record<string, string | string[] | undefined>): string[] {
  const w = headers.warning;
  return w === undefined
    ? []
    : (Array.isArray(w) ? w : [w]).flatMap((v) => v.split(/,(?=\s*299 )/)).map((v) => v.trim());
}

describe('review S11: finalizer names', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  // kubernetes pkg/apis/core/validation/validation.go ValidateObjectMeta and ValidateObjectMetaUpdate run
  // validateKubeFinalizerName on metadata.finalizers[i]: a name without '/' must be kubernetes, orphan or
  // foregroundDeletion (field.Invalid, "name is neither a standard finalizer name nor is it fully qualified").
  // apps, batch, networking and rbac validation call that core ValidateObjectMeta; admissionregistration and
  // coordination call apimachinery's, which has no such check.
  it('[FINDING S11-OR8] a ConfigMap, Deployment or ClusterRole with a finalizer without a domain ("my-finalizer") is stored, where kube refuses it with 422', async () => {
    const res = await call(server, 'POST', CM, {
      metadata: { name: 'or8-cm', finalizers: ['example.com/ok', 'my-finalizer', 'orphan'] },
    });
    expect(res.status).toBe(422);
    const body = res.json<StatusBody>();
    expect(body.details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.finalizers[1]',
        message: `Invalid value: "my-finalizer": ${NEITHER}`,
      },
    ]);
    expect(body.message).toBe(
      `ConfigMap "or8-cm" is invalid: metadata.finalizers[1]: Invalid value: "my-finalizer": ${NEITHER}`,
    );
    // added by an update too
    expect((await call(server, 'POST', CM, { metadata: { name: 'or8-cm2' } })).status).toBe(201);
    const upd = await call(
      server,
      'PATCH',
      `${CM}/or8-cm2`,
      { metadata: { finalizers: ['cleanup'] } },
      MERGE,
    );
    expect(upd.status).toBe(422);
    expect(upd.json<StatusBody>().details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.finalizers[0]',
        message: `Invalid value: "cleanup": ${NEITHER}`,
      },
    ]);
    const dep = await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'or8-dep', finalizers: ['my-finalizer'] },
      spec: {
        selector: { matchLabels: { app: 'a' } },
        template: {
          metadata: { labels: { app: 'a' } },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    });
    expect(dep.status).toBe(422);
    const role = await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'or8-role', finalizers: ['my-finalizer'] },
      rules: [],
    });
    expect(role.status).toBe(422);
    // a Lease (coordination validates with apimachinery only) takes it
    const lease = await call(server, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      metadata: { name: 'or8-lease', finalizers: ['my-finalizer'] },
    });
    expect(lease.status).toBe(201);
    expect(
      (
        await call(
          server,
          'PATCH',
          '/apis/coordination.k8s.io/v1/namespaces/default/leases/or8-lease',
          { metadata: { finalizers: null } },
          MERGE,
        )
      ).status,
    ).toBe(200);
  });

  // apiextensions-apiserver v0.32.1 customresource strategy.go WarningsOnCreate/WarningsOnUpdate
  // (generateWarningsFromObj): for each finalizer the write adds (sorted), validateKubeFinalizerName warns
  // 'metadata.finalizers: "<name>": prefer a domain-qualified finalizer name to avoid accidental conflicts
  // with other finalizer writers' ("... including a path (/) ..." when the name has a '.'); the status
  // subresource warns nothing.
  it('[FINDING S11-OR9] a custom resource given a finalizer without a domain gets no warning, where kube warns to prefer a domain-qualified name', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'cogs.or9.example.com' },
      spec: {
        group: 'or9.example.com',
        scope: 'Namespaced',
        names: { kind: 'Cog', plural: 'cogs', singular: 'cog', listKind: 'CogList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    expect((await call(server, 'POST', CRDS, crd)).status).toBe(201);
    const C = '/apis/or9.example.com/v1/namespaces/default/cogs';
    await waitFor(async () => (await call(server, 'GET', C)).status === 200);
    const res = await call(server, 'POST', C, {
      apiVersion: 'or9.example.com/v1',
      kind: 'Cog',
      metadata: { name: 'c1', finalizers: ['zeta', 'example.com/ok', 'cleanup.example.com', 'orphan'] },
    });
    expect(res.status).toBe(201);
    expect(warnings(res.headers)).toEqual([
      '299 - "metadata.finalizers: \\"cleanup.example.com\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"',
      '299 - "metadata.finalizers: \\"zeta\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"',
    ]);
    // an update warns only about the finalizers it adds
    const upd = await call(
      server,
      'PATCH',
      `${C}/c1`,
      { metadata: { finalizers: ['zeta', 'alpha'] } },
      MERGE,
    );
    expect(upd.status).toBe(200);
    expect(warnings(upd.headers)).toEqual([
      '299 - "metadata.finalizers: \\"alpha\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"',
    ]);
    const none = await call(server, 'PATCH', `${C}/c1`, { metadata: { labels: { a: 'b' } } }, MERGE);
    expect(none.status).toBe(200);
    expect(warnings(none.headers)).toEqual([]);
    expect((await call(server, 'PATCH', `${C}/c1`, { metadata: { finalizers: null } }, MERGE)).status).toBe(
      200,
    );
  });
});
