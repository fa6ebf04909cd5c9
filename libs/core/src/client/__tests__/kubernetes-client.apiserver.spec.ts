import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource, KubernetesResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesApiError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { WatchEvent } from '../types.js';
import { waitFor } from './scripted-server.js';

type Gizmo = CustomResource<{ size?: number; color?: string }, { ready?: boolean; note?: string }>;
const Gizmo = defineResource<Gizmo>({ group: 'client.tosdk.io', version: 'v1', kind: 'Gizmo' });
const CRD = defineResource<KubernetesResource & { spec: unknown }>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

const gizmoCrd = {
  metadata: { name: 'gizmos.client.tosdk.io' },
  spec: {
    group: 'client.tosdk.io',
    names: { kind: 'Gizmo', plural: 'gizmos', singular: 'gizmo', listKind: 'GizmoList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: {
                type: 'object',
                properties: { ready: { type: 'boolean' }, note: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

describe('KubernetesClient against @tosdk/apiserver (HTTPS, CA and token from the KubeConfig)', () => {
  let server: KubeApiServer;
  let client: KubernetesClient;

  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
    client = KubernetesClient.fromKubeConfig(server.kubeConfig());
    await client.create(CRD, gizmoCrd);
    // the CRD is served once discovery lists it
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const found = await client
        .request<{ resources?: { name: string }[] }>('/apis/client.tosdk.io/v1')
        .catch(() => undefined);
      if (found?.resources?.some((r) => r.name === 'gizmos')) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('creates, reads, replaces, patches (merge, JSON, apply) and deletes a custom resource and its status', async () => {
    const id = new ResourceID('g1', 'default');
    const created = await client.create(Gizmo, {
      metadata: { name: 'g1', namespace: 'default' },
      spec: { size: 1 },
    });
    expect(created.metadata?.uid).toBeTruthy();
    expect((await client.get(Gizmo, id))?.spec).toEqual({ size: 1 });

    const replaced = await client.update(Gizmo, { ...created, spec: { size: 2 } });
    expect(replaced.spec?.size).toBe(2);
    const stale = await client.update(Gizmo, { ...created, spec: { size: 3 } }).catch((e: unknown) => e);
    expect((stale as KubernetesApiError).isConflict()).toBe(true);

    const withStatus = await client.updateStatus(Gizmo, { ...replaced, status: { ready: false } });
    expect(withStatus.status).toEqual({ ready: false });
    const merged = await client.mergePatch(
      Gizmo,
      id,
      { status: { note: 'merged' } },
      { subresource: 'status' },
    );
    expect(merged.status).toEqual({ ready: false, note: 'merged' });
    const patched = await client.jsonPatch(Gizmo, id, [
      { op: 'test', path: '/spec/size', value: 2 },
      { op: 'add', path: '/metadata/finalizers', value: ['client.tosdk.io/finalizer'] },
    ]);
    expect(patched.metadata?.finalizers).toEqual(['client.tosdk.io/finalizer']);
    const failedTest = await client
      .jsonPatch(Gizmo, id, [{ op: 'test', path: '/spec/size', value: 99 }])
      .catch((e: unknown) => e);
    expect(failedTest).toBeInstanceOf(KubernetesApiError);

    const applied = await client.apply(
      Gizmo,
      { metadata: { name: 'g1', namespace: 'default' }, status: { ready: true } },
      { fieldManager: 'gizmo-controller', subresource: 'status' },
    );
    expect(applied.status?.ready).toBe(true);
    const appliedSpec = await client.apply(
      Gizmo,
      { metadata: { name: 'g1', namespace: 'default' }, spec: { color: 'blue' } },
      { fieldManager: 'gizmo-controller' },
    );
    expect(appliedSpec.spec).toEqual({ size: 2, color: 'blue' });
    expect(appliedSpec.metadata?.managedFields?.some((m) => m.manager === 'gizmo-controller')).toBe(true);

    // a finalizer keeps the object: delete returns it marked for deletion
    const marked = await client.delete(Gizmo, id);
    expect(marked?.metadata?.deletionTimestamp).toBeTruthy();
    await client.jsonPatch(Gizmo, id, [{ op: 'remove', path: '/metadata/finalizers' }]);
    expect(await client.get(Gizmo, id)).toBeUndefined();
    expect(await client.delete(Gizmo, id)).toBeUndefined();
  });

  it('lists in pages with continue tokens and selectors', async () => {
    for (let i = 0; i < 5; i++) {
      await client.create(ResourceTypes.ConfigMap, {
        metadata: {
          name: `page-${i}`,
          namespace: 'default',
          labels: { set: 'paging', odd: String(i % 2 === 1) },
        },
      });
    }
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await client.list(ResourceTypes.ConfigMap, {
        namespace: 'default',
        labelSelector: 'set=paging',
        limit: 2,
        continue: token,
      });
      names.push(...page.items.map((o) => o.metadata!.name!));
      expect(page.items.every((o) => o.kind === 'ConfigMap' && o.apiVersion === 'v1')).toBe(true);
      token = page.continue;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(names.sort()).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    const odd = await client.list(ResourceTypes.ConfigMap, { labelSelector: 'set=paging,odd=true' });
    expect(odd.items.map((o) => o.metadata!.name).sort()).toEqual(['page-1', 'page-3']);
    const byName = await client.list(ResourceTypes.ConfigMap, { fieldSelector: 'metadata.name=page-2' });
    expect(byName.items.map((o) => o.metadata!.name)).toEqual(['page-2']);
  });

  it('watches from a resourceVersion and reports an expired one as 410', async () => {
    const start = await client.list(ResourceTypes.ConfigMap, { namespace: 'default' });
    const controller = new AbortController();
    const events: WatchEvent<KubernetesResource>[] = [];
    const done = (async () => {
      for await (const event of client.watch(ResourceTypes.ConfigMap, {
        namespace: 'default',
        resourceVersion: start.resourceVersion,
        allowWatchBookmarks: true,
        signal: controller.signal,
      })) {
        events.push(event);
      }
    })();
    await client.create(ResourceTypes.ConfigMap, { metadata: { name: 'watched', namespace: 'default' } });
    await client.delete(ResourceTypes.ConfigMap, new ResourceID('watched', 'default'));
    await waitFor(() => events.filter((e) => e.type !== 'BOOKMARK').length === 2, 5_000, 'two events');
    expect(events.filter((e) => e.type !== 'BOOKMARK').map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    controller.abort();
    await done;

    server.faults.compact();
    const old: unknown[] = [];
    const failure = await (async () => {
      for await (const event of client.watch(ResourceTypes.ConfigMap, {
        resourceVersion: start.resourceVersion,
      })) {
        old.push(event);
        if (event.type === 'ERROR') return event.error;
      }
      return undefined;
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(KubernetesApiError);
    expect((failure as KubernetesApiError).isGone()).toBe(true);
  });

  it('discovers and reviews access', async () => {
    const version = await client.request<{ gitVersion?: string }>('/version');
    expect(typeof version.gitVersion).toBe('string');
    expect(await client.request<string>('/healthz')).toBe('ok');
    const review = await client.selfSubjectAccessReview({
      verb: 'update',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'default',
    });
    expect(review.allowed).toBe(true);
  });
});
