import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { apiServerSuite, newNamespace, waitFor } from '../../operator/__tests__/support.js';
import { Informer } from '../informer.js';
import { captureLogger } from './capture-logger.js';

/**
 * Adversarial review of `Informer.readmit` (the sharding hook): changes that the watch delivers
 * while readmit's list is under way must win over what that list saw.
 */
const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();
jest.setTimeout(60_000);

describe('review: readmit racing the watch', () => {
  let informer: Informer<V1ConfigMap> | undefined;
  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
  });

  it('[SH-13] an object deleted after its page was listed is not brought back; one updated after it keeps the newest version; later events still flow', async () => {
    const ns = await newNamespace(bed.admin);
    const put = (name: string, shard: string, value: string) =>
      bed.admin.apply(
        CM,
        { metadata: { name, namespace: ns, labels: { shard } }, data: { value } },
        { fieldManager: 'review' },
      );
    for (let i = 0; i < 6; i++) await put(`cm-${i}`, String(i % 2), 'v1');
    const owned = new Set(['0']);
    const events: string[] = [];
    informer = new Informer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespace: ns,
      pageSize: 1,
      logger: captureLogger(),
      admit: (o) => owned.has(o.metadata?.labels?.shard ?? ''),
    });
    informer.addEventHandler({
      onAdd: (o) => events.push(`add ${o.metadata!.name}`),
      onUpdate: (_, o) => events.push(`update ${o.metadata!.name} ${o.data?.value}`),
      onDelete: (o) => events.push(`delete ${o.metadata!.name}`),
    });
    await informer.start();
    expect(informer.keys().length).toBe(3);
    const lists = () =>
      bed.server.requests.log.filter(
        (r) => r.verb === 'list' && r.resource === 'configmaps' && r.namespace === ns,
      ).length;
    const before = lists();
    owned.add('1');
    bed.server.faults.addLatency({ verb: 'list', resource: 'configmaps', namespace: ns, ms: 300 });
    const readmit = informer.readmit();
    // pages are one object each, in name order (a request is logged when answered): after four pages
    // cm-1 and cm-3 were listed, and two more pages (each 300 ms late) are still to come
    await waitFor(() => lists() >= before + 4, 'the readmit list past cm-3', 20_000);
    await bed.admin.delete(CM, new ResourceID('cm-1', ns));
    await put('cm-3', '1', 'v2');
    await readmit;
    bed.server.faults.clear();
    await waitFor(
      () => informer!.get(new ResourceID('cm-3', ns))?.data?.value === 'v2',
      'cm-3 at its newest version',
    );
    expect(informer.get(new ResourceID('cm-1', ns))).toBeUndefined();
    const serverNames = (await bed.admin.list(CM, { namespace: ns })).items.map((o) => o.metadata!.name!);
    expect(informer.keys().sort()).toEqual(serverNames.map((n) => `${ns}/${n}`).sort());
    // the watch still delivers to the readmitted objects
    await put('cm-5', '1', 'v3');
    await waitFor(() => events.includes('update cm-5 v3'), 'an update of a readmitted object');
    expect(informer.get(new ResourceID('cm-3', ns))?.data?.value).toBe('v2');
  });
});
