/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

const SVC = '/api/v1/namespaces/d/services';
const DEP = '/apis/apps/v1/namespaces/d/deployments';

const deployment = (name: string, resources: unknown): unknown => ({
  metadata: { name },
  spec: {
    selector: { matchLabels: { a: name } },
    template: {
      metadata: { labels: { a: name } },
      spec: {
        containers: [{ name: 'c', image: 'i', resources }],
        initContainers: [{ name: 'i', image: 'i', resources }],
      },
    },
  },
});

describe('KubeApiServer defaults of built-in kinds', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'd' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('resource quantities come back canonical, as kube-apiserver writes them', async () => {
    const r = await call(
      server,
      'POST',
      DEP,
      deployment('q', {
        // requests within limits: kube refuses a request above its limit (S13-WV2)
        requests: { cpu: '2000m', memory: '0.5Gi' },
        limits: { cpu: 2, memory: '1024Mi', 'example.com/x': '1000' },
      }),
    );
    expect(r.status).toBe(201);
    const want = {
      requests: { cpu: '2', memory: '512Mi' },
      limits: { cpu: '2', memory: '1Gi', 'example.com/x': '1k' },
    };
    const spec = r.json<any>().spec.template.spec;
    expect(spec.containers[0].resources).toEqual(want);
    expect(spec.initContainers[0].resources).toEqual(want);
    const pod = await call(server, 'POST', '/api/v1/namespaces/d/pods', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1500m' } } }] },
    });
    expect(pod.json<any>().spec.containers[0].resources.limits.cpu).toBe('1500m');
    const pvc = await call(server, 'POST', '/api/v1/namespaces/d/persistentvolumeclaims', {
      metadata: { name: 'c' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2048Mi' } } },
    });
    expect(pvc.json<any>().spec.resources.requests.storage).toBe('2Gi');
  });

  it('a value that is not a quantity is a 400 naming the rule', async () => {
    const r = await call(server, 'POST', DEP, deployment('bad', { limits: { cpu: 'two' } }));
    expect(r.status).toBe(400);
    expect(r.json<any>().message).toContain(
      'Deployment in version "v1" cannot be handled as a Deployment: quantities must match the regular expression',
    );
  });

  it('NodePort and LoadBalancer Services get unique node ports in 30000-32767, kept on update, released on delete', async () => {
    const np = (
      await call(server, 'POST', SVC, {
        metadata: { name: 'np' },
        spec: {
          type: 'NodePort',
          selector: { a: 'b' },
          ports: [
            { name: 'http', port: 80 },
            { name: 'https', port: 443 },
          ],
        },
      })
    ).json<any>();
    const ports: number[] = np.spec.ports.map((p: any) => p.nodePort);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(30000);
      expect(p).toBeLessThanOrEqual(32767);
    }
    expect(new Set(ports).size).toBe(2);
    // an update that omits nodePort keeps the allocated one
    const updated = await call(
      server,
      'PATCH',
      `${SVC}/np`,
      {
        spec: {
          ports: [
            { name: 'http', port: 80 },
            { name: 'https', port: 443 },
          ],
        },
      },
      { contentType: 'application/merge-patch+json' },
    );
    expect(updated.json<any>().spec.ports.map((p: any) => p.nodePort)).toEqual(ports);
    // a port in use is refused; after the delete it can be taken
    const clash = await call(server, 'POST', SVC, {
      metadata: { name: 'clash' },
      spec: { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] },
    });
    expect(clash.status).toBe(422);
    expect(clash.json<any>().message).toContain(
      `spec.ports[0].nodePort: Invalid value: ${ports[0]}: provided port is already allocated`,
    );
    const out = await call(server, 'POST', SVC, {
      metadata: { name: 'out' },
      spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] },
    });
    expect(out.status).toBe(422);
    expect(out.json<any>().message).toContain(
      'provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    expect((await call(server, 'DELETE', `${SVC}/np`)).status).toBe(200);
    const reuse = await call(server, 'POST', SVC, {
      metadata: { name: 'reuse' },
      spec: { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] },
    });
    expect(reuse.status).toBe(201);
    expect(reuse.json<any>().spec.ports[0].nodePort).toBe(ports[0]);
  });

  it('a LoadBalancer with externalTrafficPolicy Local gets a healthCheckNodePort; ClusterIP Services get none', async () => {
    const lb = (
      await call(server, 'POST', SVC, {
        metadata: { name: 'lb' },
        spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] },
      })
    ).json<any>();
    expect(lb.spec.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
    expect(lb.spec.healthCheckNodePort).not.toBe(lb.spec.ports[0].nodePort);
    const ci = (
      await call(server, 'POST', SVC, { metadata: { name: 'ci' }, spec: { ports: [{ port: 80 }] } })
    ).json<any>();
    expect(ci.spec.ports[0].nodePort).toBeUndefined();
    const forbidden = await call(server, 'POST', SVC, {
      metadata: { name: 'ci2' },
      spec: { type: 'ClusterIP', ports: [{ port: 80, nodePort: 30555 }] },
    });
    expect(forbidden.status).toBe(422);
    // many Services never share a port
    const all = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const s = (
        await call(server, 'POST', SVC, {
          metadata: { name: `m${i}` },
          spec: { type: 'NodePort', ports: [{ port: 80 }] },
        })
      ).json<any>();
      all.add(s.spec.ports[0].nodePort);
    }
    expect(all.size).toBe(20);
  });

  it('managedFields on create: the manager from fieldManager or the user agent, operation Update; Apply for server-side apply', async () => {
    const res = await fetch(`${server.url}/api/v1/namespaces/d/configmaps`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.tokenOf()}`,
        'content-type': 'application/json',
        'user-agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc',
      },
      body: JSON.stringify({ metadata: { name: 'mf' }, data: { a: '1' } }),
    });
    const viaUa = (await res.json()) as any;
    expect(viaUa.metadata.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Update',
        apiVersion: 'v1',
        time: viaUa.metadata.creationTimestamp,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
      },
    ]);
    const named = (
      await call(server, 'POST', '/api/v1/namespaces/d/configmaps?fieldManager=my-operator', {
        metadata: { name: 'mf2', labels: { x: 'y' } },
      })
    ).json<any>();
    expect(named.metadata.managedFields).toMatchObject([
      {
        manager: 'my-operator',
        operation: 'Update',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
      },
    ]);
    const applied = (
      await call(
        server,
        'PATCH',
        '/api/v1/namespaces/d/configmaps/mf3?fieldManager=op',
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mf3' }, data: { b: '2' } },
        { contentType: 'application/apply-patch+yaml' },
      )
    ).json<any>();
    expect(applied.metadata.managedFields).toMatchObject([
      { manager: 'op', operation: 'Apply', apiVersion: 'v1' },
    ]);
  });
});
