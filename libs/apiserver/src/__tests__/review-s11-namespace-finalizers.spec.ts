// Review S11 (namespace spec.finalizers): how kube-apiserver 1.32 keeps a namespace's spec.finalizers
// on create and update, and serves the finalize subresource that changes them. Sources are named per
// test (kubernetes pkg/registry/core/namespace, pkg/apis/core/validation, release 1.32).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';

const NSS = '/api/v1/namespaces';
const MERGE = { contentType: 'application/merge-patch+json' };

interface Cause {
  reason: string;
  field: string;
  message: string;
}
interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: Cause[] };
}

describe('review S11: namespace spec.finalizers', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  // kubernetes pkg/registry/core/namespace/strategy.go PrepareForCreate: the spec.finalizers a create
  // sends are kept and "kubernetes" is appended when missing; ValidateNamespace (pkg/apis/core/validation)
  // then checks each (validateFinalizerName on spec.finalizers: a qualified name, and a name without '/' must
  // be a standard one: kubernetes, orphan, foregroundDeletion).
  it('[FINDING S11-OR4] a namespace created with spec.finalizers loses them (replaced by ["kubernetes"]), where kube keeps them and adds kubernetes', async () => {
    const res = await call(server, 'POST', NSS, {
      metadata: { name: 'or4-custom' },
      spec: { finalizers: ['example.com/teardown'] },
    });
    expect(res.status).toBe(201);
    expect(res.json<{ spec: { finalizers: string[] } }>().spec.finalizers).toEqual([
      'example.com/teardown',
      'kubernetes',
    ]);
    const got = await call(server, 'GET', `${NSS}/or4-custom`);
    expect(got.json<{ spec: { finalizers: string[] } }>().spec.finalizers).toEqual([
      'example.com/teardown',
      'kubernetes',
    ]);
    // kubernetes already listed stays once, in its place
    const listed = await call(server, 'POST', NSS, {
      metadata: { name: 'or4-listed' },
      spec: { finalizers: ['kubernetes', 'example.com/a'] },
    });
    expect(listed.json<{ spec: { finalizers: string[] } }>().spec.finalizers).toEqual([
      'kubernetes',
      'example.com/a',
    ]);
    // a name without a domain that is no standard finalizer is refused
    const bad = await call(server, 'POST', NSS, {
      metadata: { name: 'or4-bad' },
      spec: { finalizers: ['teardown'] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json<StatusBody>().details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.finalizers',
        message:
          'Invalid value: "teardown": name is neither a standard finalizer name nor is it fully qualified',
      },
    ]);
  });

  // kubernetes namespace strategy.go PrepareForUpdate: newNamespace.Spec.Finalizers =
  // oldNamespace.Spec.Finalizers (and the status is the old one): a PUT or PATCH of the namespace cannot
  // change spec.finalizers; only the finalize subresource can (FinalizeREST, below).
  it('[FINDING S11-OR5] a PUT or PATCH of a namespace changes its spec.finalizers, where kube keeps the stored ones', async () => {
    expect((await call(server, 'POST', NSS, { metadata: { name: 'or5-ns' } })).status).toBe(201);
    const patched = await call(server, 'PATCH', `${NSS}/or5-ns`, { spec: { finalizers: [] } }, MERGE);
    expect(patched.status).toBe(200);
    expect(patched.json<{ spec: { finalizers: string[] } }>().spec.finalizers).toEqual(['kubernetes']);
    const live = (await call(server, 'GET', `${NSS}/or5-ns`)).json<Record<string, unknown>>();
    const put = await call(server, 'PUT', `${NSS}/or5-ns`, {
      ...live,
      metadata: { ...(live.metadata as object), labels: { team: 'a' } },
      spec: { finalizers: ['example.com/x'] },
    });
    expect(put.status).toBe(200);
    const after = put.json<{
      metadata: { labels: Record<string, string> };
      spec: { finalizers: string[] };
    }>();
    expect(after.spec.finalizers).toEqual(['kubernetes']);
    expect(after.metadata.labels.team).toBe('a');
    const stored = (await call(server, 'GET', `${NSS}/or5-ns`)).json<{ spec: { finalizers: string[] } }>();
    expect(stored.spec.finalizers).toEqual(['kubernetes']);
  });

  // kubernetes pkg/registry/core/namespace/storage/storage.go FinalizeREST.Update (PUT
  // /api/v1/namespaces/<name>/finalize, the store's Update with FinalizeStrategy: PrepareForUpdate keeps the
  // old status only; ValidateNamespaceFinalizeUpdate checks spec.finalizers[i]); ShouldDeleteNamespaceDuringUpdate
  // deletes a terminating namespace once spec.finalizers and metadata.finalizers are empty. The namespace
  // controller (namespaced_resources_deleter.go finalizeNamespace) removes only "kubernetes" from spec.finalizers
  // once the content is gone, so a namespace with another spec finalizer stays Terminating until its owner
  // finalizes it.
  it('[FINDING S11-OR6] PUT /api/v1/namespaces/<name>/finalize is a 404, so an operator cannot finalize a namespace, and a terminating namespace with a custom spec finalizer is deleted anyway', async () => {
    expect(
      (
        await call(server, 'POST', NSS, {
          metadata: { name: 'or6-ns' },
          spec: { finalizers: ['example.com/teardown'] },
        })
      ).status,
    ).toBe(201);
    // the finalize subresource changes spec.finalizers (and, as any update, metadata), never the status
    const live = (await call(server, 'GET', `${NSS}/or6-ns`)).json<Record<string, unknown>>();
    const fin = await call(server, 'PUT', `${NSS}/or6-ns/finalize`, {
      ...live,
      spec: { finalizers: ['example.com/teardown', 'kubernetes', 'example.com/other'] },
      status: { phase: 'Terminating' },
    });
    expect(fin.status).toBe(200);
    const finBody = fin.json<{ spec: { finalizers: string[] }; status: { phase: string } }>();
    expect(finBody.spec.finalizers).toEqual(['example.com/teardown', 'kubernetes', 'example.com/other']);
    expect(finBody.status.phase).toBe('Active');
    // a bad name is refused with the indexed field of ValidateNamespaceFinalizeUpdate
    const bad = await call(server, 'PUT', `${NSS}/or6-ns/finalize`, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'or6-ns' },
      spec: { finalizers: ['kubernetes', 'teardown'] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json<StatusBody>().details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.finalizers[1]',
        message:
          'Invalid value: "teardown": name is neither a standard finalizer name nor is it fully qualified',
      },
    ]);
    // a namespace that does not exist is not created by finalize
    const missing = await call(server, 'PUT', `${NSS}/or6-missing/finalize`, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'or6-missing' },
      spec: { finalizers: [] },
    });
    expect(missing.status).toBe(404);
    expect((await call(server, 'DELETE', `${NSS}/or6-ns`)).status).toBe(200);
    // the namespace controller takes kubernetes away; the custom finalizers keep it Terminating
    const held = await waitFor(async () => {
      const r = await call(server, 'GET', `${NSS}/or6-ns`);
      if (r.status !== 200) return { gone: true, finalizers: [] as string[] };
      const f = r.json<{ spec: { finalizers: string[] } }>().spec.finalizers;
      return f.includes('kubernetes') ? undefined : { gone: false, finalizers: f };
    });
    expect(held).toEqual({ gone: false, finalizers: ['example.com/teardown', 'example.com/other'] });
    const term = (await call(server, 'GET', `${NSS}/or6-ns`)).json<Record<string, unknown>>();
    expect((term.status as { phase: string }).phase).toBe('Terminating');
    // the operator finalizes: the namespace goes
    const done = await call(server, 'PUT', `${NSS}/or6-ns/finalize`, { ...term, spec: { finalizers: [] } });
    expect(done.status).toBe(200);
    await waitFor(async () => (await call(server, 'GET', `${NSS}/or6-ns`)).status === 404);
  });
  // apimachinery v0.32.1 pkg/util/managedfields/internal/structuredmerge.go: the field manager's updater
  // ignores the strategy's reset fields (IgnoreFilter: resetFields), so a create never gives its manager
  // what the main resource resets: status on kinds with a status subresource, and a namespace's
  // spec.finalizers (namespace strategy.go ResetFieldsFor: status, spec.finalizers).
  it('[FINDING S11-OR11] the manager that creates a Namespace (or a Pod) owns its spec.finalizers and status in managedFields, where kube leaves those reset fields to no one', async () => {
    type Entry = { manager: string; operation: string; fieldsV1: Record<string, unknown> };
    const ns = await call(server, 'POST', `${NSS}?fieldManager=kubectl-create`, {
      metadata: { name: 'or11-ns' },
      spec: { finalizers: ['example.com/x'] },
    });
    expect(ns.status).toBe(201);
    const nsEntries = ns.json<{ metadata: { managedFields: Entry[] } }>().metadata.managedFields;
    expect(nsEntries.map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      [
        'kubectl-create',
        'Update',
        { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } },
      ],
    ]);
    const pod = await call(server, 'POST', '/api/v1/namespaces/default/pods?fieldManager=kubectl-run', {
      metadata: { name: 'or11-pod' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    expect(pod.status).toBe(201);
    const podEntries = pod.json<{ metadata: { managedFields: Entry[] } }>().metadata.managedFields;
    expect(podEntries).toHaveLength(1);
    expect(podEntries[0].fieldsV1['f:spec']).toBeDefined();
    expect(podEntries[0].fieldsV1['f:status']).toBeUndefined();
  });
  // kubernetes pkg/apis/core/validation ValidateNamespaceStatusUpdate (namespace strategy.go
  // namespaceStatusStrategy.ValidateUpdate): status.Phase must be Active while deletionTimestamp is empty and
  // Terminating once it is set (field.Invalid on status.Phase).
  it('[FINDING S11-OR12] a status write that sets a live namespace Terminating (or any other phase) is stored, where kube refuses it with 422', async () => {
    expect((await call(server, 'POST', NSS, { metadata: { name: 'or12-ns' } })).status).toBe(201);
    for (const phase of ['Terminating', 'Bogus']) {
      const res = await call(server, 'PATCH', `${NSS}/or12-ns/status`, { status: { phase } }, MERGE);
      expect([phase, res.status]).toEqual([phase, 422]);
      const cause = `Invalid value: ${JSON.stringify(phase)}: may only be 'Active' if \`deletionTimestamp\` is empty`;
      expect(res.json<StatusBody>()).toMatchObject({
        message: `Namespace "or12-ns" is invalid: status.Phase: ${cause}`,
        details: { causes: [{ reason: 'FieldValueInvalid', field: 'status.Phase', message: cause }] },
      });
    }
    const got = (await call(server, 'GET', `${NSS}/or12-ns`)).json<{ status: { phase: string } }>();
    expect(got.status.phase).toBe('Active');
    // conditions can be written while the phase stays
    const ok = await call(
      server,
      'PATCH',
      `${NSS}/or12-ns/status`,
      { status: { conditions: [{ type: 'Example', status: 'True' }] } },
      MERGE,
    );
    expect(ok.status).toBe(200);
  });
  it('[FINDING S11-OR13] discovery lists namespaces/finalize (verb update), as kube-apiserver’s /api/v1 and aggregated discovery do', async () => {
    const list = await call(server, 'GET', '/api/v1');
    expect(list.status).toBe(200);
    const names = list.json<{ resources: { name: string; verbs: string[] }[] }>().resources;
    expect(names.filter((r) => r.name.startsWith('namespaces')).map((r) => [r.name, r.verbs])).toEqual([
      ['namespaces', expect.arrayContaining(['create', 'get', 'list', 'watch'])],
      ['namespaces/finalize', ['update']],
      ['namespaces/status', ['get', 'patch', 'update']],
    ]);
    const agg = await call(server, 'GET', '/api', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const core = agg.json<{
      items: {
        versions: {
          resources: { resource: string; subresources?: { subresource: string; verbs: string[] }[] }[];
        }[];
      }[];
    }>().items[0];
    const ns = core.versions[0].resources.find((r) => r.resource === 'namespaces');
    expect(ns?.subresources?.map((s) => [s.subresource, s.verbs])).toEqual([
      ['finalize', ['update']],
      ['status', ['get', 'patch', 'update']],
    ]);
  });
});
