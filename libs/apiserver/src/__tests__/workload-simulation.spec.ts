/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';

const APPS = '/apis/apps/v1/namespaces/sim';
const PODS = '/api/v1/namespaces/sim/pods';
const MERGE = { contentType: 'application/merge-patch+json' };

function template(labels: Record<string, string>, image = 'nginx:1'): Record<string, unknown> {
  return { metadata: { labels }, spec: { containers: [{ name: 'c', image }] } };
}

describe('workload simulation with ReplicaSets and Pods', () => {
  let server: KubeApiServer;
  const get = async (path: string): Promise<any> => {
    const r = await call(server, 'GET', path);
    return r.status === 200 ? r.json<any>() : undefined;
  };
  const items = async (path: string): Promise<any[]> =>
    ((await get(path))?.items as any[]).filter((o) => o.metadata.deletionTimestamp === undefined);
  const controlledBy = (o: any, uid: string): boolean =>
    (o.metadata.ownerReferences ?? []).some((r: any) => r.uid === uid && r.controller === true);
  const ready = (p: any): boolean =>
    p.status?.phase === 'Running' &&
    (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

  beforeAll(async () => {
    server = await KubeApiServer.start({ simulateWorkloads: { readyDelayMs: 20 } });
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'sim' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-SIM-DEPLOY] a Deployment owns a ReplicaSet (pod-template-hash) that owns Running, Ready pods; status follows', async () => {
    const created = await call(server, 'POST', `${APPS}/deployments`, {
      metadata: { name: 'web' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) },
    });
    const dep = created.json<any>();
    const d = await waitFor(async () => {
      const x = await get(`${APPS}/deployments/web`);
      return x.status?.availableReplicas === 3 &&
        x.status.conditions?.some((c: any) => c.reason === 'NewReplicaSetAvailable')
        ? x
        : undefined;
    });
    expect(d.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    expect(d.status.conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'True', 'NewReplicaSetAvailable'],
    ]);
    const sets = (await items(`${APPS}/replicasets`)).filter((rs) => controlledBy(rs, dep.metadata.uid));
    expect(sets).toHaveLength(1);
    const rs = sets[0];
    const hash = rs.metadata.labels['pod-template-hash'];
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.spec.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: dep.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(rs.status).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    const pods = (await items(PODS)).filter((p) => controlledBy(p, rs.metadata.uid));
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.name.startsWith(`web-${hash}-`)).toBe(true);
      expect(p.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(ready(p)).toBe(true);
      expect(p.status.containerStatuses[0]).toMatchObject({ name: 'c', ready: true, state: { running: {} } });
    }
  });

  it('[AS-SIM-DEPLOY] scaling down deletes pods; a new template rolls to a new ReplicaSet; deleting the Deployment cascades', async () => {
    await call(server, 'PATCH', `${APPS}/deployments/web`, { spec: { replicas: 1 } }, MERGE);
    await waitFor(
      async () => (await items(PODS)).filter((p) => p.metadata.labels.app === 'web').length === 1,
    );
    await waitFor(async () => (await get(`${APPS}/deployments/web`)).status.replicas === 1);
    await call(
      server,
      'PATCH',
      `${APPS}/deployments/web`,
      { spec: { template: template({ app: 'web' }, 'nginx:2') } },
      MERGE,
    );
    const rolled = await waitFor(async () => {
      const x = await get(`${APPS}/deployments/web`);
      return x.status.observedGeneration === 3 &&
        x.status.updatedReplicas === 1 &&
        x.status.replicas === 1 &&
        x.status.conditions.some((c: any) => c.reason === 'NewReplicaSetAvailable')
        ? x
        : undefined;
    });
    const sets = await items(`${APPS}/replicasets`);
    const webSets = sets.filter((rs) => controlledBy(rs, rolled.metadata.uid));
    expect(webSets).toHaveLength(2);
    expect(webSets.map((rs) => rs.spec.replicas).sort()).toEqual([0, 1]);
    const current = webSets.find((rs) => rs.spec.replicas === 1);
    expect(current.spec.template.spec.containers[0].image).toBe('nginx:2');
    expect(current.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2');
    const pods = (await items(PODS)).filter((p) => p.metadata.labels.app === 'web');
    expect(pods.map((p) => p.spec.containers[0].image)).toEqual(['nginx:2']);

    await call(server, 'DELETE', `${APPS}/deployments/web`);
    await waitFor(async () =>
      (await items(`${APPS}/replicasets`)).every((rs) => !rs.metadata.name.startsWith('web-')),
    );
    await waitFor(async () => (await items(PODS)).every((p) => p.metadata.labels.app !== 'web'));
  });

  it('[AS-SIM-STS] a StatefulSet creates ordinal pods in order and deletes the highest on scale down', async () => {
    await call(server, 'POST', `${APPS}/statefulsets`, {
      metadata: { name: 'db' },
      spec: {
        replicas: 2,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: template({ app: 'db' }),
      },
    });
    const sts = await waitFor(async () => {
      const x = await get(`${APPS}/statefulsets/db`);
      return x.status?.readyReplicas === 2 ? x : undefined;
    });
    expect(sts.status).toMatchObject({
      replicas: 2,
      availableReplicas: 2,
      currentReplicas: 2,
      observedGeneration: 1,
    });
    const p0 = await get(`${PODS}/db-0`);
    const p1 = await get(`${PODS}/db-1`);
    expect(ready(p0) && ready(p1)).toBe(true);
    expect(p1.metadata.labels).toMatchObject({
      'statefulset.kubernetes.io/pod-name': 'db-1',
      'apps.kubernetes.io/pod-index': '1',
    });
    expect(p1.spec).toMatchObject({ hostname: 'db-1', subdomain: 'db' });
    // OrderedReady: db-1 was created only once db-0 was Running
    expect(Date.parse(p1.metadata.creationTimestamp)).toBeGreaterThanOrEqual(Date.parse(p0.status.startTime));
    await call(server, 'PATCH', `${APPS}/statefulsets/db`, { spec: { replicas: 1 } }, MERGE);
    await waitFor(async () => (await get(`${PODS}/db-1`)) === undefined);
    expect(await get(`${PODS}/db-0`)).toBeDefined();
    await waitFor(async () => (await get(`${APPS}/statefulsets/db`)).status.replicas === 1);
  });

  it('[AS-SIM-DS] a DaemonSet runs one pod on the single node', async () => {
    await call(server, 'POST', `${APPS}/daemonsets`, {
      metadata: { name: 'agent' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: template({ app: 'agent' }) },
    });
    const ds = await waitFor(async () => {
      const x = await get(`${APPS}/daemonsets/agent`);
      return x.status?.numberReady === 1 ? x : undefined;
    });
    expect(ds.status).toMatchObject({
      desiredNumberScheduled: 1,
      currentNumberScheduled: 1,
      numberAvailable: 1,
      numberMisscheduled: 0,
    });
    const pods = (await items(PODS)).filter((p) => controlledBy(p, ds.metadata.uid));
    expect(pods).toHaveLength(1);
    expect(ready(pods[0])).toBe(true);
  });

  it('[AS-SIM-JOB] a Job runs its pods to Succeeded and completes', async () => {
    await call(server, 'POST', '/apis/batch/v1/namespaces/sim/jobs', {
      metadata: { name: 'batch' },
      spec: {
        completions: 3,
        parallelism: 2,
        template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } },
      },
    });
    const job = await waitFor(async () => {
      const x = await get('/apis/batch/v1/namespaces/sim/jobs/batch');
      return x.status?.succeeded === 3 ? x : undefined;
    });
    expect(job.status.conditions.map((c: any) => [c.type, c.status])).toEqual([
      ['SuccessCriteriaMet', 'True'],
      ['Complete', 'True'],
    ]);
    expect(job.status.completionTime).toBeDefined();
    expect(job.status.active).toBeUndefined();
    const pods = (await items(PODS)).filter((p) => controlledBy(p, job.metadata.uid));
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.status.phase).toBe('Succeeded');
      expect(p.metadata.labels['batch.kubernetes.io/job-name']).toBe('batch');
    }
  });

  it('[AS-SIM-OFF] simulation is off by default: no ReplicaSets, no pod status', async () => {
    const plain = await KubeApiServer.start();
    try {
      const body = {
        metadata: { name: 'idle' },
        spec: { selector: { matchLabels: { app: 'idle' } }, template: template({ app: 'idle' }) },
      };
      await call(plain, 'POST', '/apis/apps/v1/namespaces/default/deployments', body);
      await call(server, 'POST', `${APPS}/deployments`, body);
      // by the time the simulating server has the deployment available, the plain one has done nothing
      await waitFor(async () => (await get(`${APPS}/deployments/idle`)).status?.availableReplicas === 1);
      const sets = (await call(plain, 'GET', '/apis/apps/v1/namespaces/default/replicasets')).json<any>()
        .items;
      expect(sets).toEqual([]);
      expect(
        (await call(plain, 'GET', '/apis/apps/v1/namespaces/default/deployments/idle')).json<any>().status ??
          {},
      ).toEqual({});
    } finally {
      await plain.stop();
    }
  });
});
