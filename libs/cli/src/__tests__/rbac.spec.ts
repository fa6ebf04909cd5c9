import { describe, expect, it } from '@jest/globals';
import type { TosdkConfig } from '../config.js';
import type { AppModel } from '../introspect.js';
import { helmChart } from '../helm.js';
import { leaderElectionOn, rbacManifests } from '../rbac.js';

const app: AppModel = { controllers: [] };
const base = (more: Partial<TosdkConfig> = {}): TosdkConfig => ({
  name: 'op',
  namespace: 'op-system',
  app: { operator: () => undefined },
  output: {},
  ...more,
});
const roles = (config: TosdkConfig, model: AppModel = app) =>
  rbacManifests(model, config)
    .filter((m) => m.kind === 'Role')
    .map((m) => `${m.metadata.namespace}/${m.metadata.name}`);

describe('tosdk generate rbac: sharding and leader election', () => {
  it('[SH-14] sharding in the configuration: a Role for the membership Leases (in leaseNamespace, else the operator namespace), and replicas > 1 is not leader election', () => {
    expect(roles(base({ sharding: {} }))).toEqual(['op-system/op-shards']);
    expect(roles(base({ sharding: { leaseNamespace: 'leases' } }))).toEqual(['leases/op-shards']);
    const sharded = base({ sharding: {}, deployment: { image: 'x', replicas: 3 } });
    expect(leaderElectionOn(sharded)).toBe(false);
    expect(roles(sharded)).toEqual(['op-system/op-shards']);
    const rule = rbacManifests(app, base({ sharding: {} })).find((m) => m.kind === 'Role')?.['rules'];
    expect(rule).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      },
    ]);
  });

  it('[SH-14] sharding seen on the loaded app (its Operator built with sharding) gives the same Role', () => {
    expect(roles(base(), { controllers: [], sharding: {} })).toEqual(['op-system/op-shards']);
    expect(roles(base(), { controllers: [], sharding: { leaseNamespace: 'elsewhere' } })).toEqual([
      'elsewhere/op-shards',
    ]);
    expect(
      leaderElectionOn(base({ deployment: { image: 'x', replicas: 2 } }), { controllers: [], sharding: {} }),
    ).toBe(false);
  });

  it('without sharding: no Leases Role; replicas > 1 still means leader election; both when both are configured', () => {
    expect(roles(base())).toEqual([]);
    expect(roles(base({ deployment: { image: 'x', replicas: 2 } }))).toEqual([
      'op-system/op-leader-election',
    ]);
    expect(roles(base({ leaderElection: {}, sharding: {} }))).toEqual([
      'op-system/op-leader-election',
      'op-system/op-shards',
    ]);
  });

  it('[SH-14] the Helm chart carries the same Leases Role (in the release namespace unless one is given) and no leader election Role', () => {
    const rbac = (config: TosdkConfig, model: AppModel = app) =>
      helmChart(model, { ...config, deployment: { image: 'x:1.0.0', replicas: 3 } }, '')[
        'templates/rbac.yaml'
      ];
    const sharded = rbac(base({ sharding: {} }));
    expect(sharded).toContain(
      'kind: Role\nmetadata:\n  name: op-shards\n  namespace: {{ .Release.Namespace }}',
    );
    expect(sharded).toContain('kind: RoleBinding\nmetadata:\n  name: op-shards\n');
    expect(sharded).toContain(
      'roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: op-shards',
    );
    expect(sharded).toMatch(/- watch\n/);
    expect(sharded).not.toContain('leader-election');
    expect(rbac(base(), { controllers: [], sharding: { leaseNamespace: 'leases' } })).toContain(
      'name: op-shards\n  namespace: leases',
    );
    const plain = rbac(base());
    expect(plain).not.toContain('op-shards');
    expect(plain).toContain('op-leader-election');
  });
});
