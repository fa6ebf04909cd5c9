import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { waitFor } from '../../client/__tests__/scripted-server.js';
import { Informer } from '../informer.js';
import { captureLogger } from './capture-logger.js';
import { FakeKube } from './fake-kube.js';

/**
 * Review s10: handlers written as `async` functions (TypeScript accepts them where `void` is
 * expected). A rejected promise nobody handles ends a Node process (`--unhandled-rejections=throw`,
 * the default since Node 15), so an informer that only catches synchronous throws lets one failing
 * async handler take the whole operator down. (Jest fails a test whose rejections go unhandled, which
 * is how this one fails on the code before the fix; the listener below covers other runners.)
 */
describe('review s10: event handlers', () => {
  let kube: FakeKube;
  let client: KubernetesClient;
  let informer: Informer<V1ConfigMap> | undefined;
  const logs = captureLogger();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeEach(async () => {
    kube = await FakeKube.start();
    client = KubernetesClient.fromKubeConfig(kube.server.kubeConfig());
    logs.lines.length = 0;
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });

  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    await informer?.stop();
    informer = undefined;
    client.close();
    await kube.stop();
  });

  it('[FINDING S10-IN3] an async handler that rejects is logged like a throwing one and leaves no unhandled rejection; the other handlers and the informer go on', async () => {
    kube.put('n', 'a');
    informer = new Informer<V1ConfigMap>({ client, type: ResourceTypes.ConfigMap, logger: logs });
    const seen: string[] = [];
    // what a user's project without this lint rule compiles without a word
    /* eslint-disable @typescript-eslint/no-misused-promises */
    informer.addEventHandler({
      onAdd: async (o) => {
        await Promise.resolve();
        throw new Error(`cannot handle ${o.metadata?.name}`);
      },
      onUpdate: async () => Promise.reject(new Error('update refused')),
    });
    /* eslint-enable @typescript-eslint/no-misused-promises */
    informer.addEventHandler({
      onAdd: (o) => seen.push(`add ${o.metadata?.name}`),
      onUpdate: (_, o) => seen.push(`update ${o.metadata?.name}`),
    });
    await informer.start();
    kube.put('n', 'a', { v: '2' });
    kube.put('n', 'b');
    await waitFor(() => seen.length === 3, 5_000, 'the events');
    await waitFor(
      () => logs.lines.filter((l) => l.level === 'error').length === 3,
      5_000,
      'the rejections to be logged',
    );
    // a few turns for any rejection to be reported unhandled
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    expect(seen).toEqual(['add a', 'update a', 'add b']);
    expect(logs.lines.filter((l) => l.level === 'error').map((l) => l.fields.error)).toEqual([
      'cannot handle a',
      'update refused',
      'cannot handle b',
    ]);
    expect(informer.health().status).toBe('synced');
  });
});
