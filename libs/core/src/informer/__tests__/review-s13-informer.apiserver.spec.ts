import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { waitFor } from '../../client/__tests__/scripted-server.js';
import { Informer } from '../informer.js';
import { MultiNamespaceInformer } from '../multi-namespace-informer.js';
import { SharedInformers } from '../shared-informers.js';
import { apiServerSuite } from '../../operator/__tests__/support.js';
import { captureLogger } from './capture-logger.js';
import { FakeClock } from './fake-clock.js';

/**
 * Review s13 (second adversarial review of the informers) against client-go's reflector and shared
 * informer (tools/cache/reflector.go, shared_informer.go, delta_fifo.go) and JOSDK's
 * InformerManager, on @tosdk/apiserver with its fault injection.
 */
const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();

describe('review s13: informers', () => {
  let counter = 0;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const namespace = async (prefix: string) => {
    const name = `s13-${prefix}-${++counter}`;
    await bed.admin.create(ResourceTypes.Namespace, { metadata: { name } });
    return name;
  };
  const put = (ns: string, name: string, v = '1') =>
    bed.admin.apply(CM, { metadata: { name, namespace: ns }, data: { v } }, { fieldManager: 'test' });

  it('[FINDING S13-IN1] a namespace change that failed (403 on the new namespace) and is retried once the permission is granted starts watching that namespace', async () => {
    const a = await namespace('in1a');
    const b = await namespace('in1b');
    await put(a, 'in-a');
    await put(b, 'in-b');
    const inf = new MultiNamespaceInformer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespaces: [a],
      backoff: { initialMs: 20, maxMs: 200 },
      logger: captureLogger(),
    });
    cleanups.push(() => inf.stop());
    await inf.start();
    // the operator is not allowed to list b yet: the change fails (failFast, the default)
    bed.server.faults.failNext({ verb: 'list', resource: 'configmaps', namespace: b, code: 403 });
    await expect(inf.changeNamespaces([a, b])).rejects.toThrow(/403|forbidden/i);
    // permission granted: the user retries the same change
    await inf.changeNamespaces([a, b]);
    expect({ namespaces: inf.namespaces, synced: inf.hasSynced(), healthy: inf.health() }).toMatchObject({
      namespaces: [a, b],
      synced: true,
      healthy: { healthy: true, status: 'synced' },
    });
    expect(inf.get(new ResourceID('in-b', b))?.data?.v).toBe('1');
    await put(b, 'later-b');
    await waitFor(() => inf.get(new ResourceID('later-b', b)) !== undefined, 10_000, 'the watch of b');
  });

  it('[FINDING S13-IN2] a MultiNamespaceInformer stopped while its first list runs (an event source deactivated during its start) lets go of every shared informer: none is left held, and a later user’s informer stops with it', async () => {
    const ns = await namespace('in2');
    await put(ns, 'x');
    const shared = new SharedInformers();
    const options = {
      client: bed.admin,
      type: CM,
      namespaces: [ns],
      shared,
      backoff: { initialMs: 20, maxMs: 200 },
      logger: captureLogger(),
    };
    bed.server.faults.addLatency({ verb: 'list', resource: 'configmaps', namespace: ns, ms: 400 });
    const first = new MultiNamespaceInformer<V1ConfigMap>(options);
    const starting = first.start().then(
      () => 'started',
      (error: Error) => error.name,
    );
    // the list is in flight (requests are logged when answered, so none is yet)
    expect(first.health().status).toBe('starting');
    await first.stop();
    expect(await starting).toBe('InformerStartError');
    expect(shared.size).toBe(0);
    bed.server.faults.clear();
    // a later user of the same selection (the event source activated again) starts and stops
    const second = new MultiNamespaceInformer<V1ConfigMap>(options);
    await second.start();
    expect(second.keys()).toEqual([`${ns}/x`]);
    await second.stop();
    const probe = shared.acquire<V1ConfigMap>({ client: bed.admin, type: CM, namespace: ns });
    cleanups.push(() => probe.release());
    expect(probe.informer.health().status).toBe('stopped');
  });

  it('[FINDING S13-IN3] an informer that loses access after it synced (RBAC revoked: watch and list 403) says in its health what to grant, as its start error does', async () => {
    const ns = await namespace('in3');
    await put(ns, 'x');
    const inf = new Informer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespace: ns,
      backoff: { initialMs: 20, maxMs: 100 },
      logger: captureLogger(),
    });
    cleanups.push(() => inf.stop());
    await inf.start();
    bed.server.faults.failNext({
      verb: 'watch',
      resource: 'configmaps',
      namespace: ns,
      code: 403,
      times: 1_000,
    });
    bed.server.faults.failNext({
      verb: 'list',
      resource: 'configmaps',
      namespace: ns,
      code: 403,
      times: 1_000,
    });
    bed.server.faults.closeAllWatches();
    await waitFor(() => /^list failed/.test(inf.health().reason ?? ''), 10_000, 'a failed re-list');
    expect(inf.health()).toMatchObject({ healthy: false, status: 'reconnecting' });
    expect(inf.health().reason).toContain(
      `Grant the operator's identity list and watch on configmaps in namespace ${ns}`,
    );
  });

  it('[FINDING S13-IN4] a stopped MultiNamespaceInformer takes no shared informer on a later namespace change (none is left held), and start() after stop() starts afresh on the namespaces set meanwhile, each time', async () => {
    const a = await namespace('in4a');
    const b = await namespace('in4b');
    await put(a, 'in-a');
    await put(b, 'in-b');
    const shared = new SharedInformers();
    const inf = new MultiNamespaceInformer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespaces: [a],
      shared,
      logger: captureLogger(),
    });
    cleanups.push(() => inf.stop());
    await inf.start();
    await inf.stop();
    expect(shared.size).toBe(0);
    // e.g. a namespace ConfigMap's event handled while the operator shuts down
    await inf.changeNamespaces([a, b]);
    expect(shared.size).toBe(0);
    for (let round = 0; round < 2; round++) {
      await inf.start();
      expect({ keys: inf.keys().sort(), synced: inf.hasSynced(), size: shared.size }).toEqual({
        keys: [`${a}/in-a`, `${b}/in-b`, ...Array.from({ length: round }, (_, i) => `${b}/later-${i}`)],
        synced: true,
        size: 2,
      });
      await put(b, `later-${round}`);
      await waitFor(() => inf.get(new ResourceID(`later-${round}`, b)) !== undefined, 10_000, 'watched');
      await inf.stop();
      expect(shared.size).toBe(0);
    }
  });

  it('[FINDING S13-IN5] after a long healthy run, the first failure backs off from the start (0.8 s by default), also when it comes soon after a routine reconnect', async () => {
    const ns = await namespace('in5');
    const clock = new FakeClock();
    const logger = captureLogger();
    const inf = new Informer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespace: ns,
      clock,
      random: () => 0.5, // no jitter
      backoff: { initialMs: 1_000, maxMs: 8_000 },
      deadStreamTimeoutMs: 1e9,
      logger,
    });
    cleanups.push(() => inf.stop());
    await inf.start();
    let written = 0;
    /** A change through the watch: the stream is connected. */
    const throughTheWatch = async () => {
      const name = `w-${++written}`;
      await put(ns, name);
      await waitFor(() => inf.get(new ResourceID(name, ns)) !== undefined, 10_000, `${name} watched`);
    };
    /** A watch refused with 429 (no re-list for it): the backoff chosen, then the informer is let go on. */
    const refusedOnce = async () => {
      const before = logger.lines.length;
      bed.server.faults.failNext({ verb: 'watch', resource: 'configmaps', namespace: ns, code: 429 });
      bed.server.faults.closeAllWatches();
      let delay: number | undefined;
      await waitFor(
        () => {
          const line = logger.lines.slice(before).find((l) => /retrying in \d+ ms/.test(l.message));
          delay = line ? Number(/retrying in (\d+) ms/.exec(line.message)![1]) : undefined;
          return delay !== undefined;
        },
        10_000,
        'the backoff',
      );
      clock.advance(delay!);
      await throughTheWatch();
      return delay;
    };
    expect([await refusedOnce(), await refusedOnce(), await refusedOnce()]).toEqual([1_000, 2_000, 4_000]);
    clock.advance(10 * 60_000); // ten healthy minutes
    // a routine reconnect (the server ends watches every 5-10 minutes), then the API server blips
    bed.server.faults.closeAllWatches();
    await throughTheWatch();
    expect(await refusedOnce()).toBe(1_000);
  });
});
