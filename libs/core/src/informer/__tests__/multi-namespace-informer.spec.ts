import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { json, status, waitFor } from '../../client/__tests__/scripted-server.js';
import { InformerStartError, InformerUsageError } from '../errors.js';
import { MultiNamespaceInformer } from '../multi-namespace-informer.js';
import { FakeClock } from './fake-clock.js';
import { FakeKube } from './fake-kube.js';

describe('MultiNamespaceInformer', () => {
  let kube: FakeKube;
  let client: KubernetesClient;
  let informer: MultiNamespaceInformer<V1ConfigMap> | undefined;

  beforeEach(async () => {
    kube = await FakeKube.start();
    client = KubernetesClient.fromKubeConfig(kube.server.kubeConfig());
    kube.put('a', 'one');
    kube.put('b', 'two');
    kube.put('c', 'three');
  });

  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
    client.close();
    await kube.stop();
  });

  const make = (namespaces: string[] | 'all') => {
    informer = new MultiNamespaceInformer<V1ConfigMap>({
      client,
      type: ResourceTypes.ConfigMap,
      clock: new FakeClock(),
      namespaces,
    });
    return informer;
  };

  it('caches the listed namespaces with one informer each, behind one read API', async () => {
    const inf = make(['a', 'b']);
    const added: string[] = [];
    inf.addEventHandler({ onAdd: (o) => added.push(o.metadata!.name!) });
    inf.addIndexer('name', (o) => [o.metadata!.name!]);
    await inf.start();
    expect(inf.hasSynced()).toBe(true);
    expect(inf.keys().sort()).toEqual(['a/one', 'b/two']);
    expect(added.sort()).toEqual(['one', 'two']);
    expect(inf.get(new ResourceID('two', 'b'))?.metadata?.name).toBe('two');
    expect(inf.get(new ResourceID('three', 'c'))).toBeUndefined();
    expect(inf.list('b').map((o) => o.metadata?.name)).toEqual(['two']);
    expect(inf.list('c')).toEqual([]);
    expect(inf.byIndex('name', 'one')).toHaveLength(1);
    expect(Object.keys(inf.healthByInformer()).sort()).toEqual(['configmaps/a', 'configmaps/b']);
    expect(inf.health()).toMatchObject({ healthy: true, status: 'synced' });
    expect(
      kube
        .listRequests()
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/api/v1/namespaces/a/configmaps', '/api/v1/namespaces/b/configmaps']);
  });

  it('changes namespaces: new ones list (adds), removed ones stop without delete events', async () => {
    const inf = make(['a', 'b']);
    const events: string[] = [];
    inf.addEventHandler({
      onAdd: (o) => events.push(`add ${o.metadata!.name}`),
      onDelete: (o) => events.push(`delete ${o.metadata!.name}`),
    });
    inf.addIndexer('name', (o) => [o.metadata!.name!]);
    await inf.start();
    await waitFor(() => kube.openWatches === 2, 5_000, 'two watches');
    events.length = 0;
    await inf.changeNamespaces(['b', 'c']);
    expect(inf.namespaces).toEqual(['b', 'c']);
    expect(events).toEqual(['add three']);
    expect(inf.keys().sort()).toEqual(['b/two', 'c/three']);
    expect(inf.byIndex('name', 'three')).toHaveLength(1);
    await waitFor(() => kube.openWatches === 2, 5_000, 'the watch of a to close and c to open');
    kube.put('c', 'four');
    kube.put('a', 'ignored');
    await waitFor(() => events.length === 2, 5_000, 'the add in c');
    expect(events).toEqual(['add three', 'add four']);

    await inf.changeNamespaces('all');
    expect(inf.keys().sort()).toEqual(['a/ignored', 'a/one', 'b/two', 'c/four', 'c/three']);
    expect(Object.keys(inf.healthByInformer())).toEqual(['configmaps']);
    await waitFor(() => kube.openWatches === 1, 5_000, 'one watch for all');
  });

  it('fails start when one namespace cannot be listed, naming the cause, and rejects bad namespaces', async () => {
    kube.overrides.push((req, res) => {
      if (!req.path.includes('/namespaces/b/')) return false;
      json(res, 403, status(403, 'Forbidden', 'cannot list configmaps in b'));
      return true;
    });
    const inf = make(['a', 'b']);
    const error = await inf.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InformerStartError);
    expect((error as Error).message).toContain('cannot list configmaps in b');
    await waitFor(() => kube.openWatches === 0, 5_000, 'no watch left');
    expect(() => make([])).toThrow(InformerUsageError);
    expect(() => make(['Not_A_Namespace'])).toThrow(InformerUsageError);
    informer = undefined;
  });
});
