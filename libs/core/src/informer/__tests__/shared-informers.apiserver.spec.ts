import { describe, expect, it } from '@jest/globals';
import type { V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { apiServerSuite, newNamespace, waitFor } from '../../operator/__tests__/support.js';
import { MultiNamespaceInformer } from '../multi-namespace-informer.js';
import { SharedInformers } from '../shared-informers.js';

const bed = apiServerSuite();

describe('SharedInformers behind MultiNamespaceInformers (the informer README example)', () => {
  it('shares per namespace, keeps indexes per user, lets go of a namespace without touching the other user, and stops with the last user', async () => {
    const web = await newNamespace(bed.admin);
    const db = await newNamespace(bed.admin);
    for (const ns of [web, db]) {
      await bed.admin.create(ResourceTypes.Secret, {
        metadata: { name: 's', namespace: ns },
        type: 'Opaque',
      });
    }
    const requests = (verb: string, ns: string) =>
      bed.server.requests.count({ verb, resource: 'secrets', namespace: ns });
    const client = bed.admin;
    const shared = new SharedInformers();
    const a = new MultiNamespaceInformer<V1Secret>({
      client,
      type: ResourceTypes.Secret,
      namespaces: [web],
      shared,
    });
    const b = new MultiNamespaceInformer<V1Secret>({
      client,
      type: ResourceTypes.Secret,
      namespaces: [web, db],
      shared,
    });
    a.addIndexer('by-type', (s) => [s.type ?? '']);
    await Promise.all([a.start(), b.start()]);
    expect(shared.size).toBe(2);
    expect(requests('list', web)).toBe(1);
    expect(requests('list', db)).toBe(1);
    expect(a.byIndex('by-type', 'Opaque')).toHaveLength(1);
    expect(() => b.byIndex('by-type', 'Opaque')).toThrow(/no index named "by-type"/);
    await waitFor(() => requests('watch', web) === 1, 'the watch in web');

    await b.changeNamespaces([db]);
    expect(shared.size).toBe(2); // a still holds web
    await bed.admin.create(ResourceTypes.Secret, { metadata: { name: 't', namespace: web }, type: 'Opaque' });
    await waitFor(() => a.byIndex('by-type', 'Opaque').length === 2, 'a sees the new secret in web');
    expect(b.list(web)).toEqual([]);
    expect(requests('list', web)).toBe(1);
    expect(requests('watch', web)).toBe(1);

    await Promise.all([a.stop(), b.stop()]);
    expect(shared.size).toBe(0);
    expect(a.health().status).toBe('stopped');
  });
});
