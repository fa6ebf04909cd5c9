import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { json, status, waitFor } from '../../client/__tests__/scripted-server.js';
import { Informer } from '../informer.js';
import type { InformerOptions } from '../informer.js';
import { captureLogger } from './capture-logger.js';
import { FakeClock } from './fake-clock.js';
import { FakeKube } from './fake-kube.js';

/**
 * Review s10 of the list-watch loop against client-go's reflector (tools/cache/reflector.go,
 * tools/pager/pager.go), driven by the scripted ConfigMap API.
 */
describe('review s10: list-watch loop', () => {
  let kube: FakeKube;
  let client: KubernetesClient;
  let clock: FakeClock;
  let informer: Informer<V1ConfigMap> | undefined;
  const logs = captureLogger();

  const make = (options: Partial<InformerOptions<V1ConfigMap>> = {}) => {
    informer = new Informer<V1ConfigMap>({
      client,
      type: ResourceTypes.ConfigMap,
      clock,
      logger: logs,
      random: () => 0.5,
      ...options,
    });
    return informer;
  };

  /** Runs the pending backoff timer once one is scheduled. */
  const runBackoff = async (expectedDelay: number) => {
    await waitFor(() => clock.pendingDelays().some((d) => d < 60_000), 5_000, 'a backoff timer');
    const delay = Math.min(...clock.pendingDelays());
    expect(delay).toBe(expectedDelay);
    clock.advance(delay);
  };

  beforeEach(async () => {
    kube = await FakeKube.start();
    client = KubernetesClient.fromKubeConfig(kube.server.kubeConfig());
    clock = new FakeClock();
    logs.lines.length = 0;
  });

  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
    client.close();
    await kube.stop();
  });

  it('[FINDING S10-IN1] a watch throttled with 429 (API Priority and Fairness) is retried with backoff, never escalated to a full re-list', async () => {
    kube.put('n', 'a');
    let throttled = 0;
    kube.overrides.push((req, res) => {
      if (req.query.get('watch') !== 'true' || throttled >= 4) return false;
      throttled++;
      json(res, 429, status(429, 'TooManyRequests', 'too many requests, please try again later'));
      return true;
    });
    const inf = make();
    await inf.start();
    for (const expected of [800, 1600, 3200, 6400]) await runBackoff(expected);
    await waitFor(() => kube.openWatches === 1, 5_000, 'the watch');
    // client-go (reflector.go, isWatchErrorRetriable / IsTooManyRequests): back off and watch again;
    // a LIST is the most expensive request to send to a server that is shedding load
    expect(kube.watchRequests()).toHaveLength(5);
    expect(kube.listRequests()).toHaveLength(1);
    // each one resumes from the list's resourceVersion
    expect(new Set(kube.watchRequests().map((r) => r.query.get('resourceVersion')))).toEqual(
      new Set(['101']),
    );
  });

  it('[FINDING S10-IN2] a paginated list whose continue tokens keep expiring (a list slower than compaction) still completes, with one unpaginated list as client-go’s pager falls back to', async () => {
    for (let i = 0; i < 5; i++) kube.put('n', `o${i}`);
    // every continue token is already compacted away when it is used
    kube.overrides.push((req, res) => {
      if (!req.query.get('continue')) return false;
      json(res, 410, status(410, 'Expired', 'The provided continue parameter is too old'));
      return true;
    });
    const inf = make({ pageSize: 2 });
    await expect(inf.start()).resolves.toBeUndefined();
    expect(inf.list()).toHaveLength(5);
    const last = kube.listRequests().at(-1)!;
    expect({ limit: last.query.get('limit'), continue: last.query.get('continue') }).toEqual({
      limit: null,
      continue: null,
    });
    expect(inf.health().status).toBe('synced');
    // readmit's list too (Informer.readmit, the sharding hook)
    const before = kube.listRequests().length;
    await expect(inf.readmit()).resolves.toBeUndefined();
    expect(kube.listRequests().at(-1)!.query.get('limit')).toBeNull();
    expect(kube.listRequests().length - before).toBe(5);
  });
});
