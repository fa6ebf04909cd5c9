import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import {
  KubernetesApiError,
  KubernetesClientConfigError,
  KubernetesClientUsageError,
  KubernetesTransportError,
} from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { WatchEvent } from '../types.js';
import { json, ScriptedServer, status, waitFor } from './scripted-server.js';

type Widget = CustomResource<{ size: number }, { ready?: boolean }>;
const Widget = defineResource<Widget>({ group: 'example.tosdk.io', version: 'v1', kind: 'Widget' });
const id = new ResourceID('w1', 'ns1');

describe('KubernetesClient', () => {
  let server: ScriptedServer;
  let client: KubernetesClient;

  beforeAll(async () => {
    server = await ScriptedServer.start();
    client = KubernetesClient.fromKubeConfig(server.kubeConfig('secret-token'), { userAgent: 'tosdk-test' });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('reads an object from its path with the KubeConfig credentials, and undefined on 404', async () => {
    server.handle((req, res) =>
      req.path.endsWith('/w1')
        ? json(res, 200, {
            apiVersion: 'example.tosdk.io/v1',
            kind: 'Widget',
            metadata: { name: 'w1', namespace: 'ns1' },
          })
        : json(res, 404, status(404, 'NotFound')),
    );
    const found = await client.get(Widget, id);
    expect(found?.metadata?.name).toBe('w1');
    expect(server.requests[0]).toMatchObject({
      method: 'GET',
      path: '/apis/example.tosdk.io/v1/namespaces/ns1/widgets/w1',
    });
    expect(server.requests[0].headers.authorization).toBe('Bearer secret-token');
    expect(server.requests[0].headers['user-agent']).toBe('tosdk-test');
    expect(await client.get(Widget, new ResourceID('gone', 'ns1'))).toBeUndefined();
    const ns = await client.get(ResourceTypes.Namespace, new ResourceID('gone'));
    expect(ns).toBeUndefined();
    expect(server.requests[2].path).toBe('/api/v1/namespaces/gone');
  });

  it('lists with selectors and paging and fills in apiVersion and kind of the items', async () => {
    server.handle((_req, res) =>
      json(res, 200, {
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '42', continue: 'next-page' },
        items: [{ metadata: { name: 'a', namespace: 'x' } }],
      }),
    );
    const page = await client.list(ResourceTypes.ConfigMap, {
      namespace: 'x',
      labelSelector: 'app=web,tier!=db',
      fieldSelector: 'metadata.name=a',
      limit: 500,
      continue: 'tok',
    });
    expect(page).toEqual({
      items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'x' } }],
      resourceVersion: '42',
      continue: 'next-page',
    });
    const req = server.requests[0];
    expect(req.path).toBe('/api/v1/namespaces/x/configmaps');
    expect(Object.fromEntries(req.query)).toEqual({
      labelSelector: 'app=web,tier!=db',
      fieldSelector: 'metadata.name=a',
      limit: '500',
      continue: 'tok',
    });
    await client.list(Widget);
    expect(server.requests[1].path).toBe('/apis/example.tosdk.io/v1/widgets');
  });

  it('sends each write with its method, path, content type and query', async () => {
    server.handle((req, res) =>
      json(res, 200, { ...(JSON.parse(req.body || '{}') as object), echoed: true }),
    );
    const obj: Widget = { metadata: { name: 'w1', namespace: 'ns1' }, spec: { size: 1 } };
    await client.create(Widget, obj, { fieldManager: 'fm', dryRun: true });
    await client.update(Widget, obj);
    await client.updateStatus(Widget, { ...obj, status: { ready: true } });
    await client.apply(
      Widget,
      { metadata: { name: 'w1', namespace: 'ns1' }, status: { ready: true } },
      {
        fieldManager: 'ctl',
        subresource: 'status',
      },
    );
    await client.mergePatch(Widget, id, { spec: { size: 2 } }, { fieldManager: 'fm' });
    await client.jsonPatch(Widget, id, [{ op: 'add', path: '/metadata/finalizers/-', value: 'f' }], {
      subresource: 'status',
    });
    await client.strategicMergePatch(ResourceTypes.ConfigMap, new ResourceID('c', 'ns1'), {
      data: { a: 'b' },
    });
    const seen = server.requests.map((r) => [r.method, r.url, r.headers['content-type']]);
    expect(seen).toEqual([
      [
        'POST',
        '/apis/example.tosdk.io/v1/namespaces/ns1/widgets?fieldManager=fm&dryRun=All',
        'application/json',
      ],
      ['PUT', '/apis/example.tosdk.io/v1/namespaces/ns1/widgets/w1', 'application/json'],
      ['PUT', '/apis/example.tosdk.io/v1/namespaces/ns1/widgets/w1/status', 'application/json'],
      [
        'PATCH',
        '/apis/example.tosdk.io/v1/namespaces/ns1/widgets/w1/status?fieldManager=ctl&force=true',
        'application/apply-patch+yaml',
      ],
      [
        'PATCH',
        '/apis/example.tosdk.io/v1/namespaces/ns1/widgets/w1?fieldManager=fm',
        'application/merge-patch+json',
      ],
      ['PATCH', '/apis/example.tosdk.io/v1/namespaces/ns1/widgets/w1/status', 'application/json-patch+json'],
      ['PATCH', '/api/v1/namespaces/ns1/configmaps/c', 'application/strategic-merge-patch+json'],
    ]);
    // apply and create fill in apiVersion and kind so the server knows the intent's type
    expect(JSON.parse(server.requests[3].body)).toEqual({
      apiVersion: 'example.tosdk.io/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'ns1' },
      status: { ready: true },
    });
    expect(JSON.parse(server.requests[0].body)).toMatchObject({
      apiVersion: 'example.tosdk.io/v1',
      kind: 'Widget',
    });
  });

  it('deletes with DeleteOptions and resolves undefined for a missing object or a bare Status', async () => {
    let answer: 'object' | 'status' | 'missing' = 'object';
    server.handle((_req, res) => {
      if (answer === 'missing') json(res, 404, status(404, 'NotFound'));
      else if (answer === 'status') json(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
      else
        json(res, 200, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'c', deletionTimestamp: 'x' },
        });
    });
    const cm = new ResourceID('c', 'ns1');
    const kept = await client.delete(ResourceTypes.ConfigMap, cm, {
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1' },
      gracePeriodSeconds: 0,
    });
    expect(kept?.metadata?.deletionTimestamp).toBe('x');
    expect(JSON.parse(server.requests[0].body)).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1' },
      gracePeriodSeconds: 0,
    });
    answer = 'status';
    expect(await client.delete(ResourceTypes.ConfigMap, cm)).toBeUndefined();
    expect(server.requests[1].body).toBe('');
    answer = 'missing';
    expect(await client.delete(ResourceTypes.ConfigMap, cm)).toBeUndefined();
  });

  it('turns failure answers into KubernetesApiError decided by status and reason', async () => {
    const cases: Array<[number, unknown, Record<string, string>]> = [
      [409, status(409, 'Conflict', 'the object has been modified'), {}],
      [409, status(409, 'AlreadyExists'), {}],
      [410, status(410, 'Expired', 'too old resource version'), {}],
      [403, status(403, 'Forbidden', 'widgets is forbidden'), {}],
      [429, status(429, 'TooManyRequests'), { 'Retry-After': '7' }],
      [502, '<html>bad gateway</html>', {}],
    ];
    let i = 0;
    server.handle((_req, res) => {
      const [code, body, headers] = cases[i++];
      if (typeof body === 'string') {
        res.writeHead(code, { 'Content-Type': 'text/html', ...headers });
        res.end(body);
      } else json(res, code, body, headers);
    });
    const errors: KubernetesApiError[] = [];
    for (let n = 0; n < cases.length; n++) {
      const error = await client.mergePatch(Widget, id, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesApiError);
      errors.push(error as KubernetesApiError);
    }
    const [conflict, exists, gone, forbidden, throttled, gateway] = errors;
    expect(conflict.code).toBe('KubernetesApiError');
    expect([conflict.isConflict(), conflict.isAlreadyExists(), conflict.status]).toEqual([true, false, 409]);
    expect([exists.isConflict(), exists.isAlreadyExists()]).toEqual([false, true]);
    expect([gone.isGone(), gone.reason]).toEqual([true, 'Expired']);
    expect(forbidden.isForbidden()).toBe(true);
    expect(forbidden.body.message).toBe('widgets is forbidden');
    expect([throttled.isTooManyRequests(), throttled.retryAfterSeconds, throttled.isRetryable()]).toEqual([
      true,
      7,
      true,
    ]);
    expect([gateway.status, gateway.reason, gateway.body.message]).toEqual([
      502,
      'InternalError',
      '<html>bad gateway</html>',
    ]);
    expect(gateway.request).toEqual({
      method: 'PATCH',
      path: '/apis/example.tosdk.io/v1/namespaces/ns1/widgets/w1',
    });
  });

  it('reports an unparsable success body and a refused connection as KubernetesTransportError', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind": "Widget", trunc');
    });
    const garbage = await client.get(Widget, id).catch((e: unknown) => e);
    expect(garbage).toBeInstanceOf(KubernetesTransportError);
    expect((garbage as KubernetesTransportError).failure).toBe('unparsable-body');
    expect((garbage as KubernetesTransportError).code).toBe('KubernetesTransport');

    const closed = await ScriptedServer.start();
    const kc = closed.kubeConfig();
    await closed.stop();
    const refused = await KubernetesClient.fromKubeConfig(kc)
      .get(Widget, id)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KubernetesTransportError);
    expect((refused as KubernetesTransportError).failure).toBe('connection');
  });

  it('times out a request whose server never answers', async () => {
    server.handle(() => undefined);
    const slow = KubernetesClient.fromKubeConfig(server.kubeConfig(), { requestTimeoutMs: 50 });
    const error = await slow.get(Widget, id).catch((e: unknown) => e);
    expect((error as KubernetesTransportError).failure).toBe('timeout');
    slow.close();
  });

  it('times out a request whose answer stalls in the middle of its body, and keeps serving others', async () => {
    server.handle((req, res) => {
      if (req.path.endsWith('/stalls')) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
        res.write('{"kind":'); // the rest never comes
        return;
      }
      json(res, 200, { kind: 'Widget', metadata: { name: req.path.split('/').pop() } });
    });
    const slow = KubernetesClient.fromKubeConfig(server.kubeConfig(), { requestTimeoutMs: 200 });
    const stalled = slow.get(Widget, new ResourceID('stalls', 'ns1')).catch((e: unknown) => e);
    // requests in flight at the same time, before and after the stalled one times out, all answer
    const others = await Promise.all(
      Array.from({ length: 20 }, (_, i) => slow.get(Widget, new ResourceID(`w${i}`, 'ns1'))),
    );
    expect(others.map((w) => w?.metadata?.name)).toEqual(Array.from({ length: 20 }, (_, i) => `w${i}`));
    const error = await stalled;
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('timeout');
    expect((error as KubernetesTransportError).message).toContain('200 ms');
    const after = await slow.get(Widget, new ResourceID('later', 'ns1'));
    expect(after?.metadata?.name).toBe('later');
    slow.close();
  });

  it('reports an answer cut off in the middle of its body as a transport error, not as a value', async () => {
    server.handle((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"kind":"Widget",', () => res.destroy());
    });
    const error = await client.get(Widget, id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('connection');
  });

  it('aborts a request in flight when its signal aborts, with an aborted transport error', async () => {
    server.handle(() => undefined); // never answers
    const controller = new AbortController();
    const pending = client
      .list(Widget, { namespace: 'ns1', signal: controller.signal })
      .catch((e: unknown) => e);
    await waitFor(() => server.requests.length > 0, 5_000, 'the request to arrive');
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('aborted');
  });

  it('rejects calls it cannot address with KubernetesClientUsageError', async () => {
    await expect(client.get(Widget, new ResourceID('w1'))).rejects.toBeInstanceOf(KubernetesClientUsageError);
    await expect(client.create(Widget, { metadata: { name: 'x' } })).rejects.toBeInstanceOf(
      KubernetesClientUsageError,
    );
    await expect(client.update(Widget, { metadata: {} })).rejects.toBeInstanceOf(KubernetesClientUsageError);
    await expect(client.request('apis')).rejects.toBeInstanceOf(KubernetesClientUsageError);
    expect(() => KubernetesClient.fromKubeConfig(new KubeConfig())).toThrow(KubernetesClientConfigError);
  });

  it('refuses a requestTimeoutMs Node cannot wait (it would time every request out after 1 ms), naming the option', () => {
    for (const requestTimeoutMs of [2 ** 31, 30 * 24 * 60 * 60 * 1000, -1, Number.NaN]) {
      expect(() => KubernetesClient.fromKubeConfig(server.kubeConfig(), { requestTimeoutMs })).toThrow(
        new KubernetesClientUsageError(
          `requestTimeoutMs must be between 0 (no timeout) and 2147483647 (~24.8 days), got ${requestTimeoutMs}`,
        ),
      );
    }
    for (const requestTimeoutMs of [0, 2 ** 31 - 1]) {
      KubernetesClient.fromKubeConfig(server.kubeConfig(), { requestTimeoutMs }).close();
    }
  });

  it('asks an exec credential plugin again after a 401 and retries once with the new token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tosdk-exec-'));
    const counter = join(dir, 'n');
    writeFileSync(counter, '0');
    const plugin = join(dir, 'plugin.cjs');
    writeFileSync(
      plugin,
      `const fs = require('fs'); const n = Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
       fs.writeFileSync(${JSON.stringify(counter)}, String(n));
       process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',
         status: { token: 'tok-' + n, expirationTimestamp: '2000-01-01T00:00:00Z' } }));`,
    );
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${server.port}`, skipTLSVerify: true }],
      users: [
        {
          name: 'exec-user',
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: process.execPath,
            args: [plugin],
            interactiveMode: 'Never',
          },
        },
      ],
      contexts: [{ name: 'c', cluster: 'c', user: 'exec-user' }],
      currentContext: 'c',
    });
    server.handle((req, res) =>
      req.headers.authorization === 'Bearer tok-2'
        ? json(res, 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } })
        : json(res, 401, status(401, 'Unauthorized')),
    );
    const execClient = KubernetesClient.fromKubeConfig(kc);
    const cm = await execClient.get(ResourceTypes.ConfigMap, new ResourceID('c', 'd'));
    expect(cm?.metadata?.name).toBe('c');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    execClient.close();
  });

  it('makes raw requests and access reviews', async () => {
    server.handle((req, res) =>
      req.path === '/apis'
        ? json(res, 200, { kind: 'APIGroupList', groups: [] })
        : json(res, 201, {
            ...(JSON.parse(req.body) as object),
            status: { allowed: false, reason: 'no rbac' },
          }),
    );
    expect(await client.request('/apis')).toEqual({ kind: 'APIGroupList', groups: [] });
    const review = await client.selfSubjectAccessReview({
      verb: 'list',
      group: 'coordination.k8s.io',
      resource: 'leases',
    });
    expect(review).toEqual({
      allowed: false,
      denied: undefined,
      reason: 'no rbac',
      evaluationError: undefined,
    });
    expect(JSON.parse(server.requests[1].body)).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'list', group: 'coordination.k8s.io', resource: 'leases' } },
    });
  });

  describe('watch', () => {
    const collect = async (iterable: AsyncIterable<WatchEvent<Widget>>) => {
      const events: WatchEvent<Widget>[] = [];
      for await (const event of iterable) events.push(event);
      return events;
    };

    it('parses events split at any byte, including inside a multi-byte character', async () => {
      const lines =
        [
          { type: 'ADDED', object: { metadata: { name: 'größe-∑', resourceVersion: '5' } } },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } },
          { type: 'MODIFIED', object: { metadata: { name: 'b', resourceVersion: '7' } } },
        ]
          .map((e) => JSON.stringify(e))
          .join('\n') + '\n\n';
      const bytes = Buffer.from(lines, 'utf8');
      server.handle(async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        for (let i = 0; i < bytes.length; i += 3) {
          res.write(bytes.subarray(i, i + 3));
          await new Promise((resolve) => setImmediate(resolve));
        }
        res.end();
      });
      const events = await collect(
        client.watch(Widget, {
          namespace: 'ns1',
          resourceVersion: '4',
          allowWatchBookmarks: true,
          timeoutSeconds: 300,
        }),
      );
      expect(events.map((e) => [e.type, (e.object as Widget).metadata?.resourceVersion])).toEqual([
        ['ADDED', '5'],
        ['BOOKMARK', '6'],
        ['MODIFIED', '7'],
      ]);
      expect((events[0].object as Widget).metadata?.name).toBe('größe-∑');
      expect(Object.fromEntries(server.requests[0].query)).toEqual({
        watch: 'true',
        resourceVersion: '4',
        allowWatchBookmarks: 'true',
        timeoutSeconds: '300',
      });
    });

    it('yields an ERROR event as a typed KubernetesApiError', async () => {
      server.handle((_req, res) => {
        res.writeHead(200);
        res.end(
          `${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version: 1 (5)') })}\n`,
        );
      });
      const [event] = await collect(client.watch(Widget));
      expect(event.type).toBe('ERROR');
      if (event.type !== 'ERROR') throw new Error('unreachable');
      expect(event.error).toBeInstanceOf(KubernetesApiError);
      expect(event.error.isGone()).toBe(true);
    });

    it('fails with a transport error on an unparsable line and an API error on a refused watch', async () => {
      server.handle((_req, res) => {
        res.writeHead(200);
        res.end('{"type":"ADDED","object":{}}\nnot json\n');
      });
      const seen: string[] = [];
      const error = await (async () => {
        for await (const event of client.watch(Widget)) seen.push(event.type);
      })().catch((e: unknown) => e);
      expect(seen).toEqual(['ADDED']);
      expect((error as KubernetesTransportError).failure).toBe('unparsable-watch-event');

      server.handle((_req, res) => json(res, 403, status(403, 'Forbidden')));
      const refused = await collect(client.watch(Widget)).catch((e: unknown) => e);
      expect((refused as KubernetesApiError).isForbidden()).toBe(true);
    });

    it('ends cleanly on abort and when the consumer breaks, leaving no open stream', async () => {
      server.handle((_req, res) => {
        res.writeHead(200);
        res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
      });
      const controller = new AbortController();
      const events: string[] = [];
      const done = (async () => {
        for await (const event of client.watch(Widget, { signal: controller.signal })) {
          events.push(event.type);
        }
      })();
      await waitFor(() => events.length === 1, 5_000, 'first event');
      controller.abort();
      await done;
      await waitFor(() => server.openResponses === 0, 5_000, 'the server to see the close');

      for await (const event of client.watch(Widget)) {
        expect(event.type).toBe('ADDED');
        break;
      }
      await waitFor(() => server.openResponses === 0, 5_000, 'the server to see the close');

      const preAborted = new AbortController();
      preAborted.abort();
      expect(await collect(client.watch(Widget, { signal: preAborted.signal }))).toEqual([]);
    });

    it('reports a stream cut in the middle of a line', async () => {
      server.handle((_req, res) => {
        res.writeHead(200);
        res.write('{"type":"ADDED","object":{"metad');
        setImmediate(() => res.destroy());
      });
      const error = await collect(client.watch(Widget)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesTransportError);
    });
  });

  it('reads the typed configmap model', async () => {
    server.handle((_req, res) =>
      json(res, 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } }),
    );
    const cm: V1ConfigMap | undefined = await client.get(ResourceTypes.ConfigMap, new ResourceID('c', 'd'));
    expect(cm?.data).toEqual({ k: 'v' });
  });
});
