import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { waitFor } from '../../client/__tests__/scripted-server.js';
import { Informer } from '../informer.js';
import { captureLogger } from './capture-logger.js';
import { FakeKube } from './fake-kube.js';

/**
 * Review s10: `readmit` (the sharding hook) adds objects from a list of its own, which may be ahead of
 * the watch: the watch then still delivers the versions between. client-go's reflector keeps one
 * source of truth per object and its informer reports an update without a new resourceVersion as a
 * resync, not a change (shared_informer.go, OnUpdate: isSync when the versions are equal).
 */
describe('review s10: readmit ahead of the watch', () => {
  let kube: FakeKube;
  let client: KubernetesClient;
  let informer: Informer<V1ConfigMap> | undefined;

  beforeEach(async () => {
    kube = await FakeKube.start();
    client = KubernetesClient.fromKubeConfig(kube.server.kubeConfig());
  });

  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
    client.close();
    await kube.stop();
  });

  it('[FINDING S10-IN4] the watch’s older versions of a readmitted object neither move the cache back in time nor report changes; its later versions do', async () => {
    const labels = { shard: '1' };
    kube.put('n', 'a', { v: '1' }, { labels });
    const owned = new Set<string>(['0']);
    informer = new Informer<V1ConfigMap>({
      client,
      type: ResourceTypes.ConfigMap,
      logger: captureLogger(),
      admit: (o) => owned.has(o.metadata?.labels?.shard ?? ''),
    });
    const inf = informer;
    const events: string[] = [];
    const id = new ResourceID('a', 'n');
    inf.addEventHandler({
      onAdd: (o) => events.push(`add ${o.metadata!.name}@${o.metadata!.resourceVersion}`),
      onUpdate: (a, b) =>
        events.push(
          `update ${b.metadata!.name} ${a.metadata!.resourceVersion}->${b.metadata!.resourceVersion}`,
        ),
      onDelete: (o) => events.push(`delete ${o.metadata!.name}`),
    });
    const versionsRead: string[] = [];
    inf.addEventHandler({ onUpdate: () => versionsRead.push(inf.get(id)!.metadata!.resourceVersion!) });
    await inf.start();
    await waitFor(() => kube.openWatches === 1, 5_000, 'the watch');
    expect(inf.keys()).toEqual([]);
    // two changes the watch has not delivered yet when readmit's list sees the second
    const v2 = kube.put('n', 'a', { v: '2' }, { labels, silent: true });
    const v3 = kube.put('n', 'a', { v: '3' }, { labels, silent: true });
    owned.add('1');
    await inf.readmit();
    expect(inf.get(id)?.metadata?.resourceVersion).toBe(v3.metadata!.resourceVersion);
    // now the watch delivers them, then a later change
    kube.sendEvent('MODIFIED', v2);
    kube.sendEvent('MODIFIED', v3);
    const v4 = kube.put('n', 'a', { v: '4' }, { labels });
    await waitFor(() => inf.get(id)?.metadata?.resourceVersion === v4.metadata!.resourceVersion, 5_000, 'v4');
    expect(events).toEqual([
      `add a@${v3.metadata!.resourceVersion}`,
      `update a ${v3.metadata!.resourceVersion}->${v4.metadata!.resourceVersion}`,
    ]);
    expect(versionsRead).toEqual([v4.metadata!.resourceVersion]);
  });
});
