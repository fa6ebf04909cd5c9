// RBAC of a sharded operator proven exactly enough: `tosdk generate rbac` for an app whose Operator
// is built with `sharding` adds a Role for the membership Leases in their namespace; two replicas
// run under exactly the generated RBAC with enforcement on (join, split, acknowledge, one leaves and
// deletes its Lease), get no 403, and every permission granted is shown needed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Type } from '@sinclair/typebox';
import {
  customResourceDefinitions,
  defineResource,
  KubernetesClient,
  Operator,
  ResourceID,
  UpdateControl,
} from '@tosdk/core';
import type { Reconciler, ResourceOf } from '@tosdk/core';
import { defineConfig, loadApp, offlineKubeConfig, rbacManifests } from '@tosdk/cli';
import type { Manifest, TosdkConfig } from '@tosdk/cli';
import { OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import {
  applyManifests,
  bootstrapBasicUser,
  forbiddenOf,
  needsOf,
  proveEveryPermissionNeeded,
} from './rbac-proof-support.js';

const NS = 'shard-work';
const LEASES = 'shard-leases';
const SA = 'system:serviceaccount:shard-system:sharded-operator';
const SA_TOKEN = 'sharded-operator-token';

const Job = defineResource({
  group: 'proof.tosdk.io',
  version: 'v1',
  kind: 'ShardJob',
  schema: {
    spec: Type.Object({ value: Type.String() }),
    status: Type.Object({ by: Type.Optional(Type.String()) }),
  },
});
type Job = ResourceOf<typeof Job>;

/** The app: what main() would build (and what `tosdk generate` loads offline). */
function buildOperator(client: KubernetesClient, identity: string): Operator {
  const operator = new Operator({
    client,
    closeClientOnStop: false,
    currentNamespace: 'shard-system',
    sharding: {
      name: 'proof',
      identity,
      leaseNamespace: LEASES,
      leaseDurationMs: 4000,
      renewDeadlineMs: 3000,
      retryPeriodMs: 250,
    },
  });
  const reconciler: Reconciler<Job> = {
    reconcile: (job) => UpdateControl.patchStatus<Job>({ ...job, status: { by: identity } }),
  };
  operator.register(reconciler, {
    resourceType: Job,
    name: 'jobs',
    namespaces: [NS],
    recordReconcileErrorEvents: false,
  });
  return operator;
}

const config: TosdkConfig = defineConfig({
  name: 'sharded-operator',
  namespace: 'shard-system',
  app: { operator: () => buildOperator(KubernetesClient.fromKubeConfig(offlineKubeConfig()), 'offline') },
  output: {},
});

describe('[RBAC proof] a sharded operator under exactly its generated RBAC', () => {
  let env: OperatorTestEnvironment;
  let manifests: Manifest[];

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({
      crds: customResourceDefinitions([Job]),
      server: { rbac: true, users: [{ name: SA, token: SA_TOKEN, groups: ['system:serviceaccounts'] }] },
    });
    await bootstrapBasicUser(env.adminClient);
    manifests = rbacManifests(await loadApp(config.app), config);
    await applyManifests(env.adminClient, manifests);
  }, 60_000);
  afterAll(() => env?.stop());

  it('[SH-14] generates a Role for the membership Leases in their namespace, with the verbs membership calls', () => {
    const role = manifests.find((m) => m.kind === 'Role' && m.metadata.name === 'sharded-operator-shards');
    expect(role?.metadata.namespace).toBe(LEASES);
    expect(role?.['rules']).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      },
    ]);
    expect(
      manifests.some((m) => m.kind === 'RoleBinding' && m.metadata.name === 'sharded-operator-shards'),
    ).toBe(true);
    // sharded replicas are not leader-elected
    expect(manifests.some((m) => m.metadata.name.endsWith('-leader-election'))).toBe(false);
  });

  it('[SH-14] two replicas join, split the work, and one leaves, with no 403; every generated permission is needed', async () => {
    const client = KubernetesClient.fromKubeConfig(env.server!.kubeConfig(SA));
    env.server!.requests.reset();
    const r1 = buildOperator(client, 'r1');
    const r2 = buildOperator(client, 'r2');
    try {
      await Promise.all([r1.start(), r2.start()]);
      await waitFor(
        () =>
          [r1, r2].every((r) => r.sharding!.status().settled && r.sharding!.status().members.length === 2),
        { timeoutMs: 30_000 },
      );
      const names = Array.from({ length: 20 }, (_, i) => `j${i}`);
      const admin = env.adminClient;
      await admin.create(NsType, { metadata: { name: NS } }).catch(() => undefined);
      for (const name of names)
        await admin.create(Job, {
          apiVersion: Job.apiVersion,
          kind: Job.kind,
          metadata: { name, namespace: NS },
          spec: { value: name },
        });
      await waitFor(
        async () => {
          const list = await admin.list(Job, { namespace: NS });
          const by = new Set(list.items.map((j) => j.status?.by));
          return list.items.length === names.length && by.has('r1') && by.has('r2') && !by.has(undefined);
        },
        { timeoutMs: 30_000 },
      );
      // r2 leaves: it deletes its Lease, r1 takes everything
      await r2.stop();
      await waitFor(() => r1.sharding!.status().settled && r1.sharding!.status().members.length === 1, {
        timeoutMs: 30_000,
      });
      expect(await admin.get(LeaseType, new ResourceID('proof-r2', LEASES))).toBeUndefined();
    } finally {
      await r2.stop();
      await r1.stop();
    }
    expect(forbiddenOf(env.server!, SA)).toEqual([]);
    const needs = needsOf(env.server!, SA);
    // patch on jobs is granted for UpdateControl.patchResource, which this reconciler does not return
    await proveEveryPermissionNeeded(env.adminClient, client, manifests, needs, [
      { group: Job.group, resource: Job.plural, verb: 'patch' },
    ]);
    client.close();
  }, 120_000);
});

const NsType = defineResource({ group: '', version: 'v1', kind: 'Namespace', scope: 'Cluster' });
const LeaseType = defineResource({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' });
