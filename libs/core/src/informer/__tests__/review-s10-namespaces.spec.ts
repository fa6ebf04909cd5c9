import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { waitFor } from '../../client/__tests__/scripted-server.js';
import { MultiNamespaceInformer } from '../multi-namespace-informer.js';
import { SharedInformers } from '../shared-informers.js';
import { FakeClock } from './fake-clock.js';
import { FakeKube } from './fake-kube.js';

/**
 * Review s10: namespace changes that overlap. JOSDK serializes them (`Controller.changeNamespaces`
 * is `synchronized`); here a second change arriving while the first one still stops and lists (a
 * namespace ConfigMap edited twice in a row, an operator reacting to each event) must neither fail
 * the first nor leave the cache between the two.
 */
describe('review s10: MultiNamespaceInformer namespace changes', () => {
  let kube: FakeKube;
  let client: KubernetesClient;
  let informer: MultiNamespaceInformer<V1ConfigMap> | undefined;

  beforeEach(async () => {
    kube = await FakeKube.start();
    client = KubernetesClient.fromKubeConfig(kube.server.kubeConfig());
    for (const ns of ['a', 'b', 'c']) kube.put(ns, `in-${ns}`);
  });

  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
    client.close();
    await kube.stop();
  });

  it('[FINDING S10-IN5] two namespace changes in a row both complete, in order: the cache and the watches end on the second', async () => {
    informer = new MultiNamespaceInformer<V1ConfigMap>({
      client,
      type: ResourceTypes.ConfigMap,
      clock: new FakeClock(),
      namespaces: ['a'],
    });
    const inf = informer;
    await inf.start();
    const first = inf.changeNamespaces(['b']);
    const second = inf.changeNamespaces(['c']);
    const outcomes = await Promise.allSettled([first, second]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : o.status))).toEqual([
      'fulfilled',
      'fulfilled',
    ]);
    expect(inf.namespaces).toEqual(['c']);
    expect(inf.keys()).toEqual(['c/in-c']);
    expect(inf.hasSynced()).toBe(true);
    await waitFor(() => kube.openWatches === 1, 5_000, 'one watch left');
    expect(kube.watchRequests().at(-1)?.path).toBe('/api/v1/namespaces/c/configmaps');
  });

  it('[FINDING S10-IN5] a stop while a namespace change is queued lets go of every informer, the change’s included', async () => {
    const shared = new SharedInformers();
    informer = new MultiNamespaceInformer<V1ConfigMap>({
      client,
      type: ResourceTypes.ConfigMap,
      clock: new FakeClock(),
      namespaces: ['a'],
      shared,
    });
    const inf = informer;
    await inf.start();
    const first = inf.changeNamespaces(['b']);
    const second = inf.changeNamespaces(['c']);
    await inf.stop();
    await Promise.allSettled([first, second]);
    // no share left behind: every informer stopped with its last user
    expect(shared.size).toBe(0);
    await waitFor(() => kube.openWatches === 0, 5_000, 'no watch left');
  });
});
