import { afterAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { apiServerSuite, newNamespace } from '../../operator/__tests__/support.js';
import { Informer } from '../informer.js';
import { captureLogger } from './capture-logger.js';

/**
 * Review (session 11) of the client-side label selector check an informer applies to own writes.
 * kube's `Requirement.Matches` (apimachinery pkg/labels/selector.go) compares `>`/`<` with
 * `strconv.ParseInt(value, 10, 64)`: exact 64-bit integers, and a label value beyond int64 is no
 * number (the object is not selected).
 */
const suite = apiServerSuite();
const CM = ResourceTypes.ConfigMap;
const informers: Informer<V1ConfigMap>[] = [];
afterAll(async () => {
  await Promise.all(informers.map((i) => i.stop()));
});

describe('review s11: client-side label selectors', () => {
  it('[FINDING S11-CQ6] an informer with "ts>1700000000000000000" refused the own write of an object labelled ts=1700000000000000001 (and took one labelled past int64) while the server judges 64-bit integers exactly', async () => {
    const ns = await newNamespace(suite.admin);
    const put = (name: string, ts: string) =>
      suite.admin.create(CM, { metadata: { name, namespace: ns, labels: { ts } }, data: {} });
    const above = await put('above', '1700000000000000001');
    const beyond = await put('beyond', '9223372036854775808');
    const labelSelector = 'ts>1700000000000000000';
    const listed = await suite.admin.list(CM, { namespace: ns, labelSelector });
    const informer = new Informer<V1ConfigMap>({
      client: suite.admin,
      type: CM,
      namespace: ns,
      labelSelector,
      logger: captureLogger(),
    });
    informers.push(informer);
    const judged = (o: V1ConfigMap) => ({
      server: listed.items.some((i) => i.metadata?.name === o.metadata?.name),
      client: informer.cacheIfNewer(o),
      cached: informer.get(new ResourceID(o.metadata!.name!, ns)) !== undefined,
    });
    expect({ above: judged(above), beyond: judged(beyond) }).toEqual({
      above: { server: true, client: true, cached: true },
      beyond: { server: false, client: false, cached: false },
    });
  });
});
