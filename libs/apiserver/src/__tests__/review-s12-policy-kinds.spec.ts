/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review S12: kinds operators commonly create as dependents (a PodDisruptionBudget, a NetworkPolicy,
 * a HorizontalPodAutoscaler) were not served: an operator creating one could not be tested against
 * the in-memory API server (404). Defaults from kube's SetDefaults_NetworkPolicy and
 * SetDefaults_HorizontalPodAutoscaler (autoscaling/v2); Tables from kubectl's printers.go.
 */
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';
const NS = '/namespaces/default';

describe('review s12: PodDisruptionBudget, NetworkPolicy and HorizontalPodAutoscaler', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  const cells = async (path: string): Promise<{ names: string[]; cells: unknown[] }> => {
    const t = (await call(server, 'GET', path, undefined, { accept: TABLE })).json<any>();
    return { names: t.columnDefinitions.map((c: any) => c.name), cells: t.rows[0].cells };
  };

  it('[FINDING S12-PK1] policy/v1 PodDisruptionBudget is served: create, status subresource, Table and discovery', async () => {
    const pdb = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    };
    const path = `/apis/policy/v1${NS}/poddisruptionbudgets`;
    expect((await call(server, 'POST', path, pdb)).status).toBe(201);
    const status = await call(
      server,
      'PATCH',
      `${path}/web/status`,
      { status: { disruptionsAllowed: 2 } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    expect(status.status).toBe(200);
    expect(await cells(`${path}/web`)).toEqual({
      names: ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'],
      cells: ['web', '1', 'N/A', 2, expect.any(String)],
    });
    const discovery = (await call(server, 'GET', '/apis/policy/v1')).json<any>();
    expect(discovery.resources.map((r: any) => r.name)).toEqual(
      expect.arrayContaining(['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    );
  });

  it('[FINDING S12-PK2] networking.k8s.io/v1 NetworkPolicy is served with kube defaults: policyTypes and port protocol', async () => {
    const path = `/apis/networking.k8s.io/v1${NS}/networkpolicies`;
    const created = await call(server, 'POST', path, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'db' },
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [{ ports: [{ port: 5432 }] }],
        egress: [{}],
      },
    });
    expect(created.status).toBe(201);
    const spec = created.json<any>().spec;
    expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(spec.ingress[0].ports[0]).toEqual({ port: 5432, protocol: 'TCP' });
    expect((await cells(`${path}/db`)).cells.slice(0, 2)).toEqual(['db', 'app=db']);
  });

  it('[FINDING S12-PK3] autoscaling/v2 HorizontalPodAutoscaler is served with kube defaults (minReplicas 1, CPU at 80%) and kubectl TARGETS', async () => {
    const path = `/apis/autoscaling/v2${NS}/horizontalpodautoscalers`;
    const created = await call(server, 'POST', path, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5 },
    });
    expect(created.status).toBe(201);
    expect(created.json<any>().spec).toMatchObject({
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
        },
      ],
    });
    expect(await cells(`${path}/web`)).toEqual({
      names: ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'],
      cells: ['web', 'Deployment/web', 'cpu: <unknown>/80%', '1', 5, 0, expect.any(String)],
    });
    // a container resource metric reads its own member (containerResource), as kubectl does
    const container = await call(server, 'POST', path, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'per-container' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 5,
        metrics: [
          {
            type: 'ContainerResource',
            containerResource: {
              name: 'memory',
              container: 'app',
              target: { type: 'Utilization', averageUtilization: 60 },
            },
          },
        ],
      },
    });
    expect(container.status).toBe(201);
    expect((await cells(`${path}/per-container`)).cells[2]).toBe('memory: <unknown>/60%');
    // server-side apply checks the fields against the kind's schema, as for every built-in kind
    const apply = await call(
      server,
      'PATCH',
      `${path}/web?fieldManager=op`,
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'web' },
        spec: { maxReplicas: 7, extra: 1 },
      },
      { contentType: 'application/apply-patch+yaml' },
    );
    expect(apply.status).toBe(500);
    expect(apply.text).toContain('.spec.extra: field not declared in schema');
  });
  const causesOf = async (path: string, body: unknown): Promise<{ status: number; causes: string[] }> => {
    const r = await call(server, 'POST', path, body);
    return {
      status: r.status,
      causes: (r.json<any>().details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`),
    };
  };

  it('[FINDING S12-PK5] a HorizontalPodAutoscaler with maxReplicas below minReplicas or 0, or without its target, is refused as kube-apiserver refuses it (422)', async () => {
    const path = `/apis/autoscaling/v2${NS}/horizontalpodautoscalers`;
    const hpa = (name: string, spec: object) => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name },
      spec,
    });
    expect(
      await causesOf(
        path,
        hpa('low', {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          minReplicas: 3,
          maxReplicas: 2,
        }),
      ),
    ).toEqual({
      status: 422,
      causes: ['spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`'],
    });
    expect(await causesOf(path, hpa('zero', { scaleTargetRef: {}, minReplicas: 0, maxReplicas: 0 }))).toEqual(
      {
        status: 422,
        causes: [
          'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
          'spec.maxReplicas: Invalid value: 0: must be greater than 0',
          'spec.scaleTargetRef.kind: Required value',
          'spec.scaleTargetRef.name: Required value',
        ],
      },
    );
  });

  it('[FINDING S12-PK6] a PodDisruptionBudget with both minAvailable and maxUnavailable, a negative count or a percent over 100% is refused (422)', async () => {
    const path = `/apis/policy/v1${NS}/poddisruptionbudgets`;
    const pdb = (name: string, spec: object) => ({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name },
      spec,
    });
    const both = await causesOf(path, pdb('both', { minAvailable: 1, maxUnavailable: 1 }));
    expect(both.status).toBe(422);
    expect(both.causes).toEqual([
      expect.stringMatching(/^spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set$/),
    ]);
    expect(await causesOf(path, pdb('bad', { minAvailable: '150%' }))).toEqual({
      status: 422,
      causes: [
        'spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
      ],
    });
    expect((await causesOf(path, pdb('neg', { maxUnavailable: -1 }))).causes).toEqual([
      'spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0',
    ]);
    expect((await causesOf(path, pdb('ok', { maxUnavailable: '50%' }))).status).toBe(201);
  });
});
