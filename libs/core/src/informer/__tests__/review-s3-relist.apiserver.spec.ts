import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { waitFor } from '../../client/__tests__/scripted-server.js';
import { Informer } from '../informer.js';
import { apiServerSuite } from '../../operator/__tests__/support.js';
import { captureLogger } from './capture-logger.js';

/**
 * Review s3 (issue 15 §2: H12 asked for the informer's FIRST list with resourceVersion=0, as
 * client-go's reflector does, served from kube-apiserver's watch cache in one answer). client-go
 * keeps one rule with it: a list after the watch's resourceVersion became unavailable (410 Gone /
 * "too old resource version") is a consistent list (resourceVersion unset), never "0" again: with
 * several API servers, "0" may be answered by a lagging watch cache older than what the informer
 * already saw, and the informer would go back in time or loop on 410 (reflector.go,
 * isLastSyncResourceVersionUnavailable). A continue page carries its token and no resourceVersion but
 * "0" (kube-apiserver refuses any other with continue). These pass on
 * the code of 02:45 UTC and guard the change. @tosdk/apiserver cannot show a lagging cache, so the
 * requests are read from its request accounting.
 */
const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();

describe('review s3: the resourceVersion of the informer’s lists', () => {
  let informer: Informer<V1ConfigMap> | undefined;
  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
  });

  it('[ES-02] after the watch history is compacted (410), the re-list is a consistent list: no resourceVersion=0, and continue pages carry no resourceVersion but "0"', async () => {
    const ns = 'review-s3-relist';
    await bed.admin.create(ResourceTypes.Namespace, { metadata: { name: ns } });
    const put = (name: string, v: string) =>
      bed.admin.apply(CM, { metadata: { name, namespace: ns }, data: { v } }, { fieldManager: 'test' });
    for (let i = 0; i < 7; i++) await put(`cm-${i}`, '1');
    informer = new Informer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespace: ns,
      pageSize: 3,
      backoff: { initialMs: 20, maxMs: 200 },
      logger: captureLogger(),
    });
    const inf = informer;
    await inf.start();
    const listsOf = () =>
      bed.server.requests.log.filter(
        (r) => r.verb === 'list' && r.resource === 'configmaps' && r.namespace === ns,
      );
    const firstLists = listsOf().length;
    expect(firstLists).toBeGreaterThan(0);
    // the watch is cut and its history made unavailable: the informer must list again
    bed.server.faults.failNext({ verb: 'watch', resource: 'configmaps', code: 503, times: 2 });
    bed.server.faults.closeAllWatches();
    await put('cm-0', '2');
    bed.server.faults.compact();
    await waitFor(() => inf.get(new ResourceID('cm-0', ns))?.data?.v === '2', 10_000, 're-listed');
    await waitFor(() => listsOf().length > firstLists, 10_000, 'a re-list');
    const relists = listsOf().slice(firstLists);
    const query = (path: string) =>
      new URLSearchParams(path.includes('?') ? path.slice(path.indexOf('?') + 1) : '');
    for (const r of relists)
      expect({ path: r.path, rv: query(r.path).get('resourceVersion') }).toEqual({ path: r.path, rv: null });
    for (const r of listsOf()) {
      const q = query(r.path);
      // kube-apiserver answers 400 to a continue with any resourceVersion but "0"
      if (q.get('continue'))
        expect({ path: r.path, rv: q.get('resourceVersion') ?? '0' }).toEqual({ path: r.path, rv: '0' });
    }
    // the re-list was paged (7 objects, pages of 3): the continue rule above was exercised
    expect(relists.filter((r) => query(r.path).get('continue')).length).toBeGreaterThanOrEqual(2);
    expect(inf.list(ns)).toHaveLength(7);
  });
});
