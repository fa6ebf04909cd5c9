import { describe, expect, it, jest } from '@jest/globals';
import { defineResource } from '../../api/resource-type.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { LeaderElector } from '../leader-election/leader-elector.js';
import { LeaderElectionPermissionError } from '../leader-election/leader-election-errors.js';
import { apiServerSuite, newNamespace, waitFor } from './support.js';

/**
 * Review s9: the start-time permission check of leader election against RBAC as `tosdk generate
 * rbac` writes it when the lease name is configured (libs/cli/src/rbac.ts `leaseRules`): `create` on
 * leases, `get` and `update` restricted to the lease by `resourceNames` (least privilege).
 */
const USER = 'lease-operator';
const suite = apiServerSuite({ rbac: true, users: [{ name: USER, token: 'lease-operator-token' }] });
jest.setTimeout(30_000);

const Role = defineResource<KubernetesResource>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'Role',
});
const RoleBinding = defineResource<KubernetesResource>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'RoleBinding',
});

async function grant(ns: string, rules: object[]): Promise<void> {
  await suite.admin.create(Role, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'leases', namespace: ns },
    rules,
  } as KubernetesResource);
  await suite.admin.create(RoleBinding, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'leases', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leases' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: USER }],
  } as KubernetesResource);
}

describe('review s9: lease permissions', () => {
  it('[FINDING S9-LE6] get and update granted only on the lease by name (as tosdk generate rbac writes them) pass the start check', async () => {
    const ns = await newNamespace(suite.admin);
    const group = { apiGroups: ['coordination.k8s.io'], resources: ['leases'] };
    await grant(ns, [
      { ...group, verbs: ['create'] },
      { ...group, verbs: ['get', 'update'], resourceNames: ['my-operator'] },
    ]);
    const client = KubernetesClient.fromKubeConfig(suite.server.kubeConfig(USER));
    const elector = new LeaderElector(
      {
        leaseName: 'my-operator',
        leaseNamespace: ns,
        identity: 'a',
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 250,
      },
      client,
      { exit: () => undefined },
    );
    try {
      // the Role is enough to lead: the check must not refuse the start
      await expect(elector.checkPermissions()).resolves.toBeUndefined();
      elector.run({ onStartLeading: () => undefined, onStopLeading: () => undefined });
      await waitFor(() => elector.isLeader(), 'a leads under that Role');
    } finally {
      await elector.stop();
      client.close();
    }
  });

  it('[FINDING S9-LE6] get or update granted on another lease name only is still refused, naming the verbs', async () => {
    const ns = await newNamespace(suite.admin);
    const group = { apiGroups: ['coordination.k8s.io'], resources: ['leases'] };
    await grant(ns, [
      { ...group, verbs: ['create'] },
      { ...group, verbs: ['get', 'update'], resourceNames: ['someone-else'] },
    ]);
    const client = KubernetesClient.fromKubeConfig(suite.server.kubeConfig(USER));
    const elector = new LeaderElector(
      { leaseName: 'my-operator', leaseNamespace: ns, identity: 'a' },
      client,
    );
    try {
      const error = await elector.checkPermissions().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LeaderElectionPermissionError);
      expect((error as LeaderElectionPermissionError).missingVerbs).toEqual(['get', 'update']);
    } finally {
      await elector.stop();
      client.close();
    }
  });
});
