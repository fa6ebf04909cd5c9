import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { EventSourceContext } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import { defineResource } from '../../../api/resource-type.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import { KubernetesClient } from '../../../client/kubernetes-client.js';
import type { Operator } from '../../../operator/operator.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { InformerEventSource } from '../informer-event-source.js';
import { Mappers, primaryAnnotations } from '../mappers.js';
import { configMap, ownedConfigMap } from './helpers.js';

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();
const { operators } = bed;

const operator = (): Operator => bed.operator();

describe('InformerEventSource: writes, clusters, kinds and namespaces', () => {
  it('[ES-12] an own write that overlaps a re-list and a foreign change loses no event and leaves no stale cache', async () => {
    const ns = await newNamespace(bed.admin);
    const runs: Array<Record<string, string> | undefined> = [];
    let source!: InformerEventSource<V1ConfigMap, Widget>;
    let overlap = false;
    const id = new ResourceID('w-cm', ns);
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new InformerEventSource({ type: CM, name: 'cms' }, c)),
        ],
        reconcile: async (w: Widget, c: Context<Widget>) => {
          runs.push(c.getSecondaryResource(CM)?.data);
          if (overlap) {
            overlap = false;
            // while our write is on its way: history is compacted and watches dropped (the informer
            // re-lists), and someone else changes the object first
            bed.server.faults.compact();
            bed.server.faults.closeAllWatches();
            await bed.admin.mergePatch(CM, id, { data: { foreign: 'yes' } });
          }
          await c
            .resourceOperations()
            .serverSideApply(ownedConfigMap('w-cm', ns, w, { value: w.spec!.value! }));
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es12', namespaces: [ns] },
    );
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(async () => (await bed.admin.get(CM, id)) !== undefined, 'created');
    await waitFor(() => !source.hasPendingOwnWrite(id), 'quiet');
    overlap = true;
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'two' } });
    // the foreign change landed during our reconciliation: it must reconcile once more
    await waitFor(() => runs.some((d) => d?.foreign === 'yes'), 'foreign change reconciled');
    await waitFor(async () => {
      const live = await bed.admin.get(CM, id);
      return (
        !source.hasPendingOwnWrite(id) &&
        source.get(id)?.metadata?.resourceVersion === live?.metadata?.resourceVersion
      );
    }, 'cache matches the server');
    expect(source.get(id)?.data).toEqual({ value: 'two', foreign: 'yes' });
    expect(source.health().healthy).toBe(true);
  });

  it('[ES-13] an informer on a second cluster with its own client and the annotation mapper', async () => {
    const other = await KubeApiServer.start({ port: 0 });
    const remote = KubernetesClient.fromKubeConfig(other.kubeConfig());
    try {
      const ns = await newNamespace(bed.admin);
      await remote.create(ResourceTypes.Namespace, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'remote' },
      });
      const seen: Array<string | undefined> = [];
      operator().register(
        {
          prepareEventSources: (c: EventSourceContext<Widget>) => [
            new InformerEventSource<V1ConfigMap, Widget>(
              {
                type: CM,
                name: 'remote',
                client: remote,
                namespaces: ['remote'],
                secondaryToPrimaryMapper: Mappers.fromDefaultAnnotations(),
              },
              c,
            ),
          ],
          reconcile: (_w: Widget, c: Context<Widget>) => {
            seen.push(c.getSecondaryResource(CM)?.data?.v);
            return UpdateControl.noUpdate();
          },
        },
        { resourceType: Widget, name: 'es13', namespaces: [ns] },
      );
      await operators[0].start();
      const w = await bed.admin.create(Widget, widget('w', ns));
      await waitFor(() => seen.length === 1, 'initial');
      await remote.create(
        CM,
        configMap('far', 'remote', { v: 'remote-1' }, { annotations: primaryAnnotations(w) }),
      );
      await waitFor(() => seen.includes('remote-1'), 'remote secondary reconciles the local primary');
      expect(other.requests.count({ verb: 'watch', resource: 'configmaps' })).toBeGreaterThan(0);
      expect(bed.server.requests.count({ verb: 'list', resource: 'configmaps', namespace: 'remote' })).toBe(
        0,
      );
    } finally {
      await operators.splice(0).map((o) => o.stop())[0];
      remote.close();
      await other.stop();
    }
  });

  it('[ES-16] generic (untyped) resources as secondaries', async () => {
    const ns = await newNamespace(bed.admin);
    const Untyped = defineResource<KubernetesResource & { data?: Record<string, string> }>({
      group: '',
      version: 'v1',
      kind: 'Secret',
    });
    const seen: Array<string | undefined> = [];
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          new InformerEventSource({ type: Untyped, name: 'secrets' }, c),
        ],
        reconcile: (_w: Widget, c: Context<Widget>) => {
          seen.push(c.getSecondaryResource(Untyped)?.data?.k);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es16', namespaces: [ns] },
    );
    await operators[0].start();
    const w = await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => seen.length === 1, 'initial');
    await bed.admin.create(Untyped, {
      ...ownedConfigMap('s', ns, w),
      kind: 'Secret',
      data: { k: Buffer.from('v').toString('base64') },
    } as KubernetesResource);
    await waitFor(() => seen.includes('dg=='), 'secret reconciles its owner');
  });

  it('[ES-17] informers that follow the controller change namespaces with it, to and from all namespaces', async () => {
    const ns1 = await newNamespace(bed.admin);
    const ns2 = await newNamespace(bed.admin);
    const seen: string[] = [];
    let following!: InformerEventSource<V1ConfigMap, Widget>;
    let fixed!: InformerEventSource<V1ConfigMap, Widget>;
    const registered = operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => ({
          following: (following = new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, c)),
          fixed: (fixed = new InformerEventSource<V1ConfigMap, Widget>(
            { type: CM, namespaces: [ns1], labelSelector: 'never=true' },
            c,
          )),
        }),
        reconcile: (w: Widget, c: Context<Widget>) => {
          const cms = c.getSecondaryResources(CM);
          seen.push(`${w.metadata!.namespace}/${cms.map((m) => m.data?.v).join(',')}`);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es17', namespaces: [ns1] },
    );
    await operators[0].start();
    expect(following.namespaces).toEqual([ns1]);
    const w2 = await bed.admin.create(Widget, widget('w', ns2));
    await bed.admin.create(CM, ownedConfigMap('c', ns2, w2, { v: 'two' }));
    await registered.changeNamespaces([ns1, ns2]);
    expect(following.namespaces).toEqual([ns1, ns2]);
    await waitFor(
      () => seen.includes(`${ns2}/two`),
      'secondary of the new namespace is cached for the first reconcile',
    );
    await registered.changeNamespaces([]);
    expect(following.namespaces).toBe('all');
    expect(fixed.namespaces).toEqual([ns1]);
    await registered.changeNamespaces([ns1]);
    expect(following.namespaces).toEqual([ns1]);
  });

  it('[ES-19] primary, status and secondary operations persist and are filtered as documented', async () => {
    const ns = await newNamespace(bed.admin);
    const runs: string[] = [];
    let source!: InformerEventSource<V1ConfigMap, Widget>;
    const results: Record<string, unknown> = {};
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new InformerEventSource({ type: CM, name: 'cms' }, c)),
        ],
        reconcile: async (w: Widget, c: Context<Widget>) => {
          runs.push(w.metadata!.resourceVersion!);
          if (runs.length > 1) return UpdateControl.noUpdate();
          const ops = c.resourceOperations();
          const created = await ops.create(ownedConfigMap('c', ns, w, { step: 'create' }));
          const updated = await ops.update({ ...created, data: { step: 'update' } });
          await ops.jsonPatch(updated, [{ op: 'add', path: '/data/json', value: 'yes' }]);
          const merged = await ops.jsonMergePatch(updated, { data: { merge: 'yes' } });
          results.secondary = source.get(ResourceID.fromResource(merged))?.data;
          const status = await ops.serverSideApplyPrimaryStatus({
            apiVersion: Widget.apiVersion,
            kind: Widget.kind,
            metadata: { name: w.metadata!.name!, namespace: ns },
            status: { observed: 'ssa' },
          });
          await ops.jsonMergePatchPrimaryStatus(status, { status: { count: 1 } });
          await ops.jsonPatchPrimaryStatus(status, [{ op: 'add', path: '/status/message', value: 'json' }]);
          await ops.jsonMergePatchPrimary(status, { metadata: { labels: { merged: 'yes' } } });
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es19', namespaces: [ns] },
    );
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    const wid = new ResourceID('w', ns);
    await waitFor(
      async () => (await bed.admin.get(Widget, wid))?.metadata?.labels?.merged === 'yes',
      'all written',
    );
    expect(results.secondary).toEqual({ step: 'update', json: 'yes', merge: 'yes' });
    expect((await bed.admin.get(CM, new ResourceID('c', ns)))?.data).toEqual({
      step: 'update',
      json: 'yes',
      merge: 'yes',
    });
    expect((await bed.admin.get(Widget, wid))?.status).toEqual({
      observed: 'ssa',
      count: 1,
      message: 'json',
    });
    // a foreign change is the barrier: status and metadata writes (generation unchanged) and own
    // secondary writes did not reconcile again
    await waitFor(() => !source.hasPendingOwnWrite(new ResourceID('c', ns)), 'own events consumed');
    await bed.admin.mergePatch(CM, new ResourceID('c', ns), { data: { foreign: 'x' } });
    await waitFor(() => runs.length >= 2, 'foreign change reconciles');
    await waitFor(
      async () =>
        source.get(new ResourceID('c', ns))?.metadata?.resourceVersion ===
        (await bed.admin.get(CM, new ResourceID('c', ns)))?.metadata?.resourceVersion,
      'quiet',
    );
    expect(runs).toHaveLength(2);
    expect(bed.server.requests.writes({ namespace: ns, resource: 'configmaps' })).toBe(5);
  });

  it('[ES-05] event sources registered and deregistered while the operator runs', async () => {
    const ns = await newNamespace(bed.admin);
    const seen: Array<string | undefined> = [];
    let mode: 'register' | 'deregister' | 'none' = 'none';
    operator().register(
      {
        reconcile: async (_w: Widget, c: Context<Widget>) => {
          const retriever = c.eventSourceRetriever();
          if (mode === 'register') {
            await retriever.dynamicallyRegisterEventSource(
              'late',
              () => new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, retriever.eventSourceContext),
            );
          } else if (mode === 'deregister') {
            await retriever.dynamicallyDeregisterEventSource('late');
          }
          seen.push(
            retriever.getEventSource('late') ? (c.getSecondaryResource(CM)?.data?.v ?? 'registered') : 'none',
          );
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es05', namespaces: [ns] },
    );
    await operators[0].start();
    const w = await bed.admin.create(Widget, widget('w', ns, { value: '1' }));
    await waitFor(() => seen.length === 1, 'initial');
    mode = 'register';
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: '2' } });
    await waitFor(() => seen.includes('registered'), 'registered');
    mode = 'none';
    await bed.admin.create(CM, ownedConfigMap('c', ns, w, { v: 'live' }));
    await waitFor(() => seen.includes('live'), 'the late source reconciles');
    mode = 'deregister';
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: '3' } });
    await waitFor(() => seen[seen.length - 1] === 'none', 'deregistered');
    const watchesBefore = bed.server.requests.count({ verb: 'watch', resource: 'configmaps', namespace: ns });
    expect(operators[0].runtimeInfo.eventSourceHealth().es05.late).toBeUndefined();
    expect(watchesBefore).toBeGreaterThan(0);
  });
});
