import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { defineResource } from '../../api/resource-type.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { KubernetesApiError } from '../../client/errors.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { waitFor } from '../../client/__tests__/scripted-server.js';
import { InformerStartError } from '../errors.js';
import { Informer } from '../informer.js';
import { apiServerSuite } from '../../operator/__tests__/support.js';

const Role = defineResource<KubernetesResource & { rules: unknown[] }>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'Role',
});
const RoleBinding = defineResource<KubernetesResource & { roleRef: unknown; subjects: unknown[] }>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'RoleBinding',
});

describe('Informer without permission to list (RBAC on)', () => {
  const bed = apiServerSuite({ rbac: true, users: [{ name: 'operator', token: 'operator-token' }] });
  let operator: KubernetesClient;

  beforeAll(async () => {
    operator = KubernetesClient.fromKubeConfig(bed.server.kubeConfig('operator'));
    await bed.admin.create(ResourceTypes.ConfigMap, { metadata: { name: 'seen', namespace: 'default' } });
  });
  afterAll(() => operator.close());

  it('fails start with the 403 as cause when failFast is on; with it off, reports unhealthy and recovers once access is granted', async () => {
    const strict = new Informer<V1ConfigMap>({
      client: operator,
      type: ResourceTypes.ConfigMap,
      namespace: 'default',
    });
    const error = await strict.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InformerStartError);
    expect(((error as InformerStartError).cause as KubernetesApiError).isForbidden()).toBe(true);
    expect(strict.health().status).toBe('failed');

    const lenient = new Informer<V1ConfigMap>({
      client: operator,
      type: ResourceTypes.ConfigMap,
      namespace: 'default',
      failFast: false,
      backoff: { initialMs: 20, maxMs: 100 },
    });
    try {
      await lenient.start();
      expect(lenient.health()).toMatchObject({ healthy: false, status: 'failed' });
      expect(lenient.health().reason).toContain('403');
      await bed.admin.create(Role, {
        metadata: { name: 'cm-watcher', namespace: 'default' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      });
      await bed.admin.create(RoleBinding, {
        metadata: { name: 'operator-cm', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-watcher' },
        subjects: [{ kind: 'User', name: 'operator' }],
      });
      await waitFor(() => lenient.hasSynced(), 10_000, 'the sync after the grant');
      expect(lenient.keys()).toEqual(['default/seen']);
      expect(lenient.health().healthy).toBe(true);
      await bed.admin.create(ResourceTypes.ConfigMap, { metadata: { name: 'later', namespace: 'default' } });
      await waitFor(() => lenient.keys().includes('default/later'), 5_000, 'the watch');
    } finally {
      await lenient.stop();
    }
  });
});
