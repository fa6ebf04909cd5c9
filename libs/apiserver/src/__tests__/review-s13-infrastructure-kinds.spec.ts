/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review S13: kinds of the cluster's infrastructure that operators read or create were not served
 * (404): Nodes (node-aware operators, DaemonSet-like controllers), EndpointSlices (what service
 * discovery watches since Endpoints were deprecated), StorageClasses (storage operators),
 * PriorityClasses (operators giving their workloads a priority), ResourceQuotas and LimitRanges
 * (multi-tenancy operators creating them per namespace). Defaults and validation from kube-apiserver
 * 1.32 (pkg/apis/*\/v1/defaults.go, pkg/apis/*\/validation); Tables from kubectl's printers.go.
 */
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

describe('review s13: Node, EndpointSlice, StorageClass, PriorityClass, ResourceQuota, LimitRange', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  const table = async (
    path: string,
  ): Promise<{ names: string[]; priorities: number[]; rows: unknown[][] }> => {
    const t = (await call(server, 'GET', path, undefined, { accept: TABLE })).json<any>();
    return {
      names: t.columnDefinitions.map((c: any) => c.name),
      priorities: t.columnDefinitions.map((c: any) => c.priority),
      rows: t.rows.map((r: any) => r.cells),
    };
  };

  it('[FINDING S13-IK1] core/v1 Node is served: created with its status, allocatable defaulted, kubectl columns, spec.unschedulable field selector, conditions merged by type', async () => {
    const created = await call(server, 'POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'worker-1',
        labels: { 'node-role.kubernetes.io/worker': '', 'kubernetes.io/role': 'edge' },
      },
      spec: { unschedulable: true },
      status: {
        capacity: { cpu: '4', memory: '8Gi' },
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [
          { type: 'InternalIP', address: '10.0.0.5' },
          { type: 'Hostname', address: 'worker-1' },
        ],
        nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12' },
      },
    });
    expect(created.status).toBe(201);
    // nodeStrategy.PrepareForCreate keeps the status a kubelet registers with; SetDefaults_NodeStatus
    expect(created.json<any>().status).toMatchObject({
      capacity: { cpu: '4', memory: '8Gi' },
      allocatable: { cpu: '4', memory: '8Gi' },
    });
    expect((await call(server, 'POST', '/api/v1/nodes', { metadata: { name: 'worker-2' } })).status).toBe(
      201,
    );

    const t = await table('/api/v1/nodes');
    expect(t.names).toEqual([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP',
      'External-IP',
      'OS-Image',
      'Kernel-Version',
      'Container-Runtime',
    ]);
    expect(t.priorities).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    expect(t.rows).toEqual([
      [
        'worker-1',
        'Ready,SchedulingDisabled',
        'edge,worker',
        expect.any(String),
        'v1.32.0',
        '10.0.0.5',
        '<none>',
        'Debian GNU/Linux 12',
        '<unknown>',
        '<unknown>',
      ],
      [
        'worker-2',
        'Unknown',
        '<none>',
        expect.any(String),
        '',
        '<none>',
        '<none>',
        '<unknown>',
        '<unknown>',
        '<unknown>',
      ],
    ]);

    const cordoned = await call(server, 'GET', '/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse');
    expect(cordoned.json<any>().items.map((n: any) => n.metadata.name)).toEqual(['worker-2']);

    // a kubelet's strategic merge patch of its conditions merges by type (patchMergeKey=type)
    const patched = await call(
      server,
      'PATCH',
      '/api/v1/nodes/worker-1/status',
      { status: { conditions: [{ type: 'MemoryPressure', status: 'False' }] } },
      { contentType: 'application/strategic-merge-patch+json' },
    );
    expect(patched.status).toBe(200);
    expect(
      patched
        .json<any>()
        .status.conditions.map((c: any) => c.type)
        .sort(),
    ).toEqual(['MemoryPressure', 'Ready']);
    // a write of the main resource leaves the status alone
    const relabelled = await call(
      server,
      'PATCH',
      '/api/v1/nodes/worker-1',
      { metadata: { labels: { zone: 'a' } }, status: { capacity: { cpu: '1' } } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(relabelled.json<any>().status.capacity).toEqual({ cpu: '4', memory: '8Gi' });
  });

  it('[FINDING S13-IK2] discovery.k8s.io/v1 EndpointSlice is served: port defaults, kubectl columns, address type required, supported and immutable', async () => {
    const path = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
    const created = await call(server, 'POST', path, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ port: 80 }, { name: 'metrics' }, {}],
      endpoints: [
        { addresses: ['10.1.0.1', '10.1.0.2'] },
        { addresses: ['10.1.0.3'], conditions: { ready: true } },
        { addresses: ['10.1.0.4'] },
      ],
    });
    expect(created.status).toBe(201);
    // SetDefaults_EndpointPort
    expect(created.json<any>().ports).toEqual([
      { port: 80, name: '', protocol: 'TCP' },
      { name: 'metrics', protocol: 'TCP' },
      { name: '', protocol: 'TCP' },
    ]);
    const t = await table(`${path}/web-abc`);
    expect(t.names).toEqual(['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    // an empty name counts as a name in formatDiscoveryPorts ("" is printed for the third port)
    expect(t.rows[0]).toEqual([
      'web-abc',
      'IPv4',
      '80,metrics,',
      '10.1.0.1,10.1.0.2,10.1.0.3 + 1 more...',
      expect.any(String),
    ]);
    const selected = await call(server, 'GET', `${path}?labelSelector=kubernetes.io%2Fservice-name%3Dweb`);
    expect(selected.json<any>().items).toHaveLength(1);

    const missing = await call(server, 'POST', path, { metadata: { name: 'no-type' }, endpoints: [] });
    expect(missing.status).toBe(422);
    expect(missing.json<any>().details.causes).toEqual([
      { reason: 'FieldValueRequired', field: 'addressType', message: 'Required value' },
    ]);
    const wrong = await call(server, 'POST', path, {
      metadata: { name: 'bad' },
      addressType: 'IPv5',
      endpoints: [],
    });
    expect(wrong.status).toBe(422);
    expect(wrong.json<any>().message).toContain(
      'addressType: Unsupported value: "IPv5": supported values: "IPv4", "IPv6", "FQDN"',
    );
    const changed = await call(
      server,
      'PATCH',
      `${path}/web-abc`,
      { addressType: 'IPv6' },
      { contentType: 'application/merge-patch+json' },
    );
    expect(changed.status).toBe(422);
    expect(changed.json<any>().message).toContain('addressType: Invalid value: "IPv6": field is immutable');
  });

  it('[FINDING S13-IK3] storage.k8s.io/v1 StorageClass is served: defaults, the default class marked in the Table, fixed fields refused on update', async () => {
    const path = '/apis/storage.k8s.io/v1/storageclasses';
    const created = await call(server, 'POST', path, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'example.com/ssd',
      parameters: { type: 'ssd' },
      allowVolumeExpansion: true,
    });
    expect(created.status).toBe(201);
    expect(created.json<any>()).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const t = await table(`${path}/fast`);
    expect(t.names).toEqual([
      'Name',
      'Provisioner',
      'ReclaimPolicy',
      'VolumeBindingMode',
      'AllowVolumeExpansion',
      'Age',
    ]);
    expect(t.rows[0]).toEqual([
      'fast (default)',
      'example.com/ssd',
      'Delete',
      'Immediate',
      true,
      expect.any(String),
    ]);

    const noProvisioner = await call(server, 'POST', path, { metadata: { name: 'none' } });
    expect(noProvisioner.status).toBe(422);
    expect(noProvisioner.json<any>().message).toContain('provisioner: Required value');
    const update = await call(
      server,
      'PATCH',
      `${path}/fast`,
      { parameters: { type: 'hdd' }, reclaimPolicy: 'Retain', allowVolumeExpansion: false },
      { contentType: 'application/merge-patch+json' },
    );
    expect(update.status).toBe(422);
    expect(update.json<any>().details.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: 'parameters',
        message: 'Forbidden: updates to parameters are forbidden.',
      },
      {
        reason: 'FieldValueForbidden',
        field: 'reclaimPolicy',
        message: 'Forbidden: updates to reclaimPolicy are forbidden.',
      },
    ]);
    // what may change does
    const expansion = await call(
      server,
      'PATCH',
      `${path}/fast`,
      { allowVolumeExpansion: false },
      { contentType: 'application/merge-patch+json' },
    );
    expect(expansion.status).toBe(200);
  });

  it('[FINDING S13-IK4] scheduling.k8s.io/v1 PriorityClass is served with the system classes, its default, its columns and its value rules', async () => {
    const path = '/apis/scheduling.k8s.io/v1/priorityclasses';
    const system = (await call(server, 'GET', path)).json<any>().items;
    expect(system.map((c: any) => [c.metadata.name, c.value, c.preemptionPolicy])).toEqual([
      ['system-cluster-critical', 2000000000, 'PreemptLowerPriority'],
      ['system-node-critical', 2000001000, 'PreemptLowerPriority'],
    ]);
    const created = await call(server, 'POST', path, {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'batch-low' },
      value: 100,
      description: 'batch jobs',
    });
    expect(created.status).toBe(201);
    expect(created.json<any>()).toMatchObject({ value: 100, preemptionPolicy: 'PreemptLowerPriority' });
    const t = await table(`${path}/batch-low`);
    expect(t.names).toEqual(['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
    expect(t.rows[0]).toEqual(['batch-low', 100, false, expect.any(String), 'PreemptLowerPriority']);

    const tooHigh = await call(server, 'POST', path, { metadata: { name: 'vip' }, value: 1_000_000_001 });
    expect(tooHigh.status).toBe(422);
    expect(tooHigh.json<any>().message).toContain(
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    );
    const reserved = await call(server, 'POST', path, { metadata: { name: 'system-mine' }, value: 1 });
    expect(reserved.status).toBe(422);
    expect(reserved.json<any>().message).toContain(
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    );
    const changed = await call(
      server,
      'PATCH',
      `${path}/batch-low`,
      { value: 200 },
      { contentType: 'application/merge-patch+json' },
    );
    expect(changed.status).toBe(422);
    expect(changed.json<any>().message).toContain('value: Forbidden: may not be changed in an update.');
  });

  it('[FINDING S13-IK5] core/v1 ResourceQuota and LimitRange are served: quota columns, container limit defaults', async () => {
    const quotas = '/api/v1/namespaces/default/resourcequotas';
    expect(
      (
        await call(server, 'POST', quotas, {
          metadata: { name: 'team' },
          spec: { hard: { 'requests.cpu': '2', 'limits.memory': '4Gi', pods: '10' } },
        })
      ).status,
    ).toBe(201);
    // no quota controller runs here: the status is what a writer puts there
    const status = await call(
      server,
      'PATCH',
      `${quotas}/team/status`,
      {
        status: {
          hard: { 'requests.cpu': '2', 'limits.memory': '4Gi', pods: '10' },
          used: { 'requests.cpu': '500m', pods: '3' },
        },
      },
      { contentType: 'application/merge-patch+json' },
    );
    expect(status.status).toBe(200);
    const t = await table(`${quotas}/team`);
    expect(t.names).toEqual(['Name', 'Request', 'Limit', 'Age']);
    expect(t.rows[0]).toEqual([
      'team',
      'pods: 3/10, requests.cpu: 500m/2',
      'limits.memory: 0/4Gi',
      expect.any(String),
    ]);

    const ranges = '/api/v1/namespaces/default/limitranges';
    const created = await call(server, 'POST', ranges, {
      metadata: { name: 'defaults' },
      spec: {
        limits: [
          { type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } },
          { type: 'Pod', max: { cpu: '4' } },
        ],
      },
    });
    expect(created.status).toBe(201);
    // SetDefaults_LimitRangeItem: default limits from max, default requests from those, then from min
    expect(created.json<any>().spec.limits).toEqual([
      {
        type: 'Container',
        max: { cpu: '2' },
        min: { memory: '64Mi' },
        default: { cpu: '2' },
        defaultRequest: { cpu: '2', memory: '64Mi' },
      },
      { type: 'Pod', max: { cpu: '4' } },
    ]);
    expect((await table(`${ranges}/defaults`)).names).toEqual(['Name', 'Created At']);
  });

  it('[FINDING S13-IK6] discovery names the new groups and resources with their short names', async () => {
    const core = (await call(server, 'GET', '/api/v1')).json<any>().resources;
    const byName = (rs: unknown, name: string): any => (rs as any[]).find((r: any) => r.name === name);
    expect(byName(core, 'nodes')).toMatchObject({ namespaced: false, kind: 'Node', shortNames: ['no'] });
    expect(byName(core, 'nodes/status')).toBeDefined();
    expect(byName(core, 'resourcequotas')).toMatchObject({ namespaced: true, shortNames: ['quota'] });
    expect(byName(core, 'limitranges')).toMatchObject({ namespaced: true, shortNames: ['limits'] });
    const groups = (await call(server, 'GET', '/apis')).json<any>().groups.map((g: any) => g.name);
    expect(groups).toEqual(
      expect.arrayContaining(['discovery.k8s.io', 'storage.k8s.io', 'scheduling.k8s.io']),
    );
    const storage = (await call(server, 'GET', '/apis/storage.k8s.io/v1')).json<any>().resources;
    expect(byName(storage, 'storageclasses')).toMatchObject({ namespaced: false, shortNames: ['sc'] });
  });

  it("[FINDING S13-IK8] an HPA's TARGETS read as kubectl prints them: status by index, no (avg) for pods and container metrics, <auto> without a target utilization", async () => {
    const path = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
    expect(
      (
        await call(server, 'POST', path, {
          metadata: { name: 'mixed' },
          spec: {
            scaleTargetRef: ref,
            maxReplicas: 5,
            metrics: [
              {
                type: 'Pods',
                pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } },
              },
              {
                type: 'ContainerResource',
                containerResource: {
                  name: 'memory',
                  container: 'app',
                  target: { type: 'AverageValue', averageValue: '100Mi' },
                },
              },
              {
                type: 'Resource',
                resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
              },
            ],
          },
        })
      ).status,
    ).toBe(201);
    const status = await call(
      server,
      'PATCH',
      `${path}/mixed/status`,
      {
        status: {
          currentReplicas: 2,
          desiredReplicas: 2,
          currentMetrics: [
            { type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '7' } } },
            {
              type: 'ContainerResource',
              containerResource: { name: 'memory', container: 'app', current: { averageValue: '50Mi' } },
            },
          ],
        },
      },
      { contentType: 'application/merge-patch+json' },
    );
    expect(status.status).toBe(200);
    expect((await table(`${path}/mixed`)).rows[0]?.[2]).toBe('7/10, memory: 50Mi/100Mi + 1 more...');

    // two metrics of one type: each reads the status at its own index
    expect(
      (
        await call(server, 'POST', path, {
          metadata: { name: 'two-resources' },
          spec: {
            scaleTargetRef: ref,
            maxReplicas: 5,
            metrics: [
              {
                type: 'Resource',
                resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
              },
              { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization' } } },
            ],
          },
        })
      ).status,
    ).toBe(201);
    await call(
      server,
      'PATCH',
      `${path}/two-resources/status`,
      {
        status: {
          currentReplicas: 1,
          desiredReplicas: 1,
          currentMetrics: [
            { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 30 } } },
            { type: 'Resource', resource: { name: 'memory', current: { averageUtilization: 70 } } },
          ],
        },
      },
      { contentType: 'application/merge-patch+json' },
    );
    expect((await table(`${path}/two-resources`)).rows[0]?.[2]).toBe('cpu: 30%/60%, memory: 70%/<auto>');
  });

  it("[FINDING S13-IK9] an HPA with a behavior gets both scaling rules filled with kube's defaults, keeping what it sets", async () => {
    const path = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
    const created = await call(server, 'POST', path, {
      metadata: { name: 'slow-down' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 10,
        behavior: { scaleDown: { stabilizationWindowSeconds: 600 } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.json<any>().spec.behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 600,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
    });
    // without a behavior nothing is added
    const plain = await call(server, 'POST', path, {
      metadata: { name: 'plain' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3 },
    });
    expect(plain.json<any>().spec.behavior).toBeUndefined();
  });

  it('[FINDING S13-IK10] a NetworkPolicy kube refuses is refused: protocols, port numbers and names, endPort, peers, CIDRs, policy types', async () => {
    const path = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';
    const bad = await call(server, 'POST', path, {
      metadata: { name: 'bad' },
      spec: {
        podSelector: {},
        ingress: [
          {
            ports: [
              { protocol: 'tcp', port: 80 },
              { port: 70000 },
              { port: 'Http_Port' },
              { port: 8080, endPort: 8000 },
              { port: 'metrics', endPort: 9100 },
            ],
            from: [{}, { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }],
          },
        ],
        egress: [
          {
            to: [
              { ipBlock: { cidr: '10.0.0.0/33' } },
              { ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16', '10.1.0.0/16'] } },
            ],
          },
        ],
        policyTypes: ['Ingress', 'Outgress'],
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.json<any>().details.causes.map((c: any) => `${c.field}: ${c.message}`)).toEqual([
      'spec.ingress[0].ports[0].protocol: Unsupported value: "tcp": supported values: "TCP", "UDP", "SCTP"',
      'spec.ingress[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.ingress[0].ports[2].port: Invalid value: "Http_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.ingress[0].ports[3].endPort: Invalid value: 8000: must be greater than or equal to `port`',
      'spec.ingress[0].ports[4].endPort: Invalid value: 9100: may not be specified when `port` is non-numeric',
      'spec.ingress[0].from[0]: Required value: must specify a peer',
      'spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer',
      'spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.egress[0].to[1].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
      'spec.policyTypes[1]: Unsupported value: "Outgress": supported values: "Ingress", "Egress"',
    ]);
    // what kube accepts is accepted: a port range, a named port, an except inside the block, IPv6
    const good = await call(server, 'POST', path, {
      metadata: { name: 'good' },
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [
          {
            ports: [
              { port: 5432, endPort: 5440 },
              { port: 'metrics', protocol: 'UDP' },
            ],
            from: [{ namespaceSelector: {}, podSelector: {} }],
          },
        ],
        egress: [
          {
            to: [
              { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } },
              { ipBlock: { cidr: '2001:db8::/32', except: ['2001:db8:1::/48'] } },
            ],
          },
        ],
      },
    });
    expect(good.status).toBe(201);
  });
});
