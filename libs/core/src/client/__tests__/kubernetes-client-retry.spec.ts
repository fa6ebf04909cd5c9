import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource } from '../../api/resource-type.js';
import { ResourceID } from '../../api/resource-id.js';
import {
  KubernetesApiError,
  KubernetesClientClosedError,
  KubernetesClientUsageError,
  KubernetesTransportError,
} from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { KubernetesClientOptions } from '../kubernetes-client.js';
import { json, ScriptedServer, status, waitFor } from './scripted-server.js';

type Widget = CustomResource<{ size: number }, { ready?: boolean }>;
const Widget = defineResource<Widget>({ group: 'example.tosdk.io', version: 'v1', kind: 'Widget' });
const id = new ResourceID('w1', 'ns1');
const widget = (extra: Record<string, unknown> = {}): Widget & { metadata: { name: string } } => ({
  apiVersion: 'example.tosdk.io/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'ns1', ...extra },
  spec: { size: 1 },
});

/** Answers the first `failures` requests with `fail`, the rest with the widget. */
function failing(server: ScriptedServer, failures: number, fail: (res: http.ServerResponse) => void): void {
  let n = 0;
  server.handle((_req, res) => {
    if (n++ < failures) fail(res);
    else json(res, 200, widget({ resourceVersion: '7' }));
  });
}

const internalError = (res: http.ServerResponse) => json(res, 500, status(500, 'InternalError'));

describe('KubernetesClient retries transient failures of requests a repeat cannot harm', () => {
  let server: ScriptedServer;
  let client: KubernetesClient;
  let retries: Array<[string, string]>;
  const make = (options: KubernetesClientOptions = {}) =>
    KubernetesClient.fromKubeConfig(server.kubeConfig(), {
      metrics: { clientRetry: (verb, reason) => retries.push([verb, reason]) },
      retry: { initialDelayMs: 1, maxDelayMs: 5 },
      ...options,
    });

  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
    retries = [];
    client = make();
  });
  afterEach(() => {
    client.close();
  });

  it('a GET answered 500 twice succeeds on the third attempt, and each retry is reported', async () => {
    failing(server, 2, internalError);
    expect((await client.get(Widget, id))?.metadata?.name).toBe('w1');
    expect(server.requests).toHaveLength(3);
    expect(retries).toEqual([
      ['get', '500'],
      ['get', '500'],
    ]);
  });

  it('gives up after maxRetries and throws the last failure', async () => {
    client = make({ retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 } });
    failing(server, 10, (res) => json(res, 503, status(503, 'ServiceUnavailable')));
    const error = await client.list(Widget, { namespace: 'ns1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesApiError);
    expect((error as KubernetesApiError).status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it('retry: false sends each request once', async () => {
    client = make({ retry: false });
    failing(server, 1, internalError);
    await expect(client.get(Widget, id)).rejects.toBeInstanceOf(KubernetesApiError);
    expect(server.requests).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('429 is retried for any request, even a generateName create, after the Retry-After the server asks for', async () => {
    failing(server, 1, (res) => json(res, 429, status(429, 'TooManyRequests'), { 'Retry-After': '0' }));
    const created = await client.create(Widget, {
      metadata: { generateName: 'w-', namespace: 'ns1' },
      spec: { size: 1 },
    });
    expect(created.metadata?.name).toBe('w1');
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(retries).toEqual([['create', '429']]);
  });

  it('a Retry-After longer than maxRetryAfterMs goes to the caller at once, with its retryAfterSeconds', async () => {
    failing(server, 1, (res) => json(res, 429, status(429, 'TooManyRequests'), { 'Retry-After': '30' }));
    const error = await client.get(Widget, id).catch((e: unknown) => e);
    expect((error as KubernetesApiError).isTooManyRequests()).toBe(true);
    expect((error as KubernetesApiError).retryAfterSeconds).toBe(30);
    expect(server.requests).toHaveLength(1);
  });

  it('500 is not retried where a landed first attempt makes a repeat harmful', async () => {
    const cases: Array<[string, () => Promise<unknown>]> = [
      [
        'create with generateName',
        () =>
          client.create(Widget, { metadata: { generateName: 'w-', namespace: 'ns1' }, spec: { size: 1 } }),
      ],
      ['update without resourceVersion', () => client.update(Widget, widget())],
      [
        'JSON patch without test',
        () => client.jsonPatch(Widget, id, [{ op: 'add', path: '/spec/size', value: 2 }]),
      ],
      [
        'JSON patch whose test a landed attempt leaves true (a repeat would append twice)',
        () =>
          client.jsonPatch(Widget, id, [
            { op: 'test', path: '/spec/size', value: 1 },
            { op: 'add', path: '/metadata/finalizers/-', value: 'x' },
          ]),
      ],
      ['strategic merge patch', () => client.strategicMergePatch(Widget, id, { spec: { size: 2 } })],
      ['raw POST', () => client.request('/apis/x', { method: 'POST', body: {} })],
      // a landed delete then a new object of the same name: a blind repeat would delete that one
      ['delete without a uid or resourceVersion precondition', () => client.delete(Widget, id)],
    ];
    for (const [what, call] of cases) {
      server.requests.length = 0;
      failing(server, 1, internalError);
      const error = await call().catch((e: unknown) => e);
      expect([what, (error as KubernetesApiError).status]).toEqual([what, 500]);
      expect([what, server.requests.length]).toEqual([what, 1]);
    }
    expect(retries).toEqual([]);
  });

  it('500 is retried for apply, merge patch, JSON patch with test, update with resourceVersion, delete with a precondition and named create', async () => {
    const cases: Array<[string, string, () => Promise<unknown>]> = [
      ['apply', 'apply', () => client.apply(Widget, widget(), { fieldManager: 'm' })],
      ['merge patch', 'patch', () => client.mergePatch(Widget, id, { spec: { size: 2 } })],
      [
        'JSON patch with test',
        'patch',
        () =>
          client.jsonPatch(Widget, id, [
            { op: 'test', path: '/metadata/resourceVersion', value: '6' },
            { op: 'replace', path: '/spec/size', value: 2 },
          ]),
      ],
      [
        'JSON patch that changes only what it tests',
        'patch',
        () =>
          client.jsonPatch(Widget, id, [
            { op: 'test', path: '/metadata/finalizers', value: ['a'] },
            { op: 'add', path: '/metadata/finalizers/-', value: 'b' },
          ]),
      ],
      [
        'update with resourceVersion',
        'update',
        () => client.update(Widget, widget({ resourceVersion: '6' })),
      ],
      [
        'status update with resourceVersion',
        'update',
        () => client.updateStatus(Widget, widget({ resourceVersion: '6' })),
      ],
      [
        'delete with a uid precondition',
        'delete',
        () => client.delete(Widget, id, { preconditions: { uid: 'u-1' } }),
      ],
      [
        'delete with a resourceVersion precondition',
        'delete',
        () => client.delete(Widget, id, { preconditions: { resourceVersion: '6' } }),
      ],
      ['named create', 'create', () => client.create(Widget, widget())],
      ['access review', 'create', () => client.selfSubjectAccessReview({ verb: 'get', resource: 'pods' })],
    ];
    for (const [what, verb, call] of cases) {
      server.requests.length = 0;
      retries = [];
      failing(server, 1, internalError);
      await call();
      expect([what, server.requests.length, retries]).toEqual([what, 2, [[verb, '500']]]);
    }
  });

  it('a named create whose repeat finds the object reports 409 AlreadyExists, caused by the transient failure', async () => {
    let n = 0;
    server.handle((_req, res) => {
      if (n++ === 0) json(res, 504, status(504, 'Timeout'));
      else json(res, 409, status(409, 'AlreadyExists'));
    });
    const error = await client.create(Widget, widget()).catch((e: unknown) => e);
    expect((error as KubernetesApiError).isAlreadyExists()).toBe(true);
    expect(((error as Error).cause as KubernetesApiError).status).toBe(504);
  });

  it('a connection reset on a fresh socket is retried for a GET, not for a generateName create', async () => {
    let n = 0;
    server.handle((_req, res) => {
      if (n++ === 0) res.socket?.destroy();
      else json(res, 200, widget());
    });
    client = make({ maxSockets: 1 });
    expect((await client.get(Widget, id))?.metadata?.name).toBe('w1');
    expect(retries).toEqual([['get', 'connection']]);
    n = 0;
    retries = [];
    const fresh = make();
    const error = await fresh
      .create(Widget, { metadata: { generateName: 'w-', namespace: 'ns1' }, spec: { size: 1 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect(retries).toEqual([]);
    fresh.close();
  });

  it('a refused connection is retried even for a generateName create (nothing reached a server)', async () => {
    const closed = await ScriptedServer.start();
    const kc = closed.kubeConfig();
    await closed.stop();
    const c = KubernetesClient.fromKubeConfig(kc, {
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 },
      metrics: { clientRetry: (verb, reason) => retries.push([verb, reason]) },
    });
    const error = await c
      .create(Widget, { metadata: { generateName: 'w-', namespace: 'ns1' }, spec: { size: 1 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect(retries).toEqual([
      ['create', 'connection'],
      ['create', 'connection'],
    ]);
    c.close();
  });

  it('the global budget stops retries once spent, so a failing server gets no multiple of the load', async () => {
    client = make({ retry: { budgetReserve: 2, budgetRatio: 0, initialDelayMs: 1, maxDelayMs: 2 } });
    server.handle((_req, res) => internalError(res));
    for (let i = 0; i < 4; i++) await client.get(Widget, id).catch(() => undefined);
    // 4 first attempts and the 2 retries the budget held
    expect(server.requests).toHaveLength(6);
    expect(client.retryBudget).toBe(0);
  });

  it('rejects retry options out of range, naming the option', () => {
    expect(() => make({ retry: { maxRetries: -1 } })).toThrow(KubernetesClientUsageError);
    expect(() => make({ retry: { maxRetries: -1 } })).toThrow(/retry\.maxRetries/);
    expect(() => make({ retry: { initialDelayMs: 100, maxDelayMs: 10 } })).toThrow(/retry\.maxDelayMs/);
  });
});

describe('KubernetesClient.close() ends the client for good', () => {
  let server: ScriptedServer;

  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('refuses every request after close() with a typed error, and sends nothing', async () => {
    server.handle((_req, res) => json(res, 200, widget()));
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
    await client.get(Widget, id);
    client.close();
    const calls: Array<() => Promise<unknown>> = [
      () => client.get(Widget, id),
      () => client.list(Widget),
      () => client.create(Widget, widget()),
      () => client.update(Widget, widget()),
      () => client.apply(Widget, widget(), { fieldManager: 'm' }),
      () => client.mergePatch(Widget, id, { spec: { size: 3 } }, { subresource: 'status' }),
      () => client.delete(Widget, id),
      () => client.request('/version'),
    ];
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesClientClosedError);
      expect((error as KubernetesClientClosedError).code).toBe('KubernetesClientClosed');
      expect((error as Error).message).toMatch(/create a new client/);
    }
    const watch = client.watch(Widget)[Symbol.asyncIterator]();
    await expect(watch.next()).rejects.toBeInstanceOf(KubernetesClientClosedError);
    expect(server.requests).toHaveLength(1);
  });

  it('ends requests and watches in flight with the typed error', async () => {
    server.handle((req, res) => {
      if (req.query.get('watch') === 'true') res.writeHead(200, { 'Content-Type': 'application/json' });
      // other requests never get an answer
    });
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
    const pending = client.create(Widget, widget()).catch((e: unknown) => e);
    const watch = client.watch(Widget)[Symbol.asyncIterator]();
    const next = watch.next().catch((e: unknown) => e);
    await waitFor(() => server.requests.length === 2 && server.openResponses === 2, 5_000, 'both requests');
    client.close();
    expect(await pending).toBeInstanceOf(KubernetesClientClosedError);
    expect(await next).toBeInstanceOf(KubernetesClientClosedError);
    await waitFor(() => server.openResponses === 0, 5_000, 'the server to see both connections end');
  });

  it('a retry waiting for its delay is not sent after close()', async () => {
    server.handle((_req, res) => json(res, 429, status(429, 'TooManyRequests'), { 'Retry-After': '2' }));
    let retrying = false;
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(), {
      metrics: { clientRetry: () => (retrying = true) },
    });
    const pending = client.create(Widget, widget()).catch((e: unknown) => e);
    // the 429 arrived and the retry waits for its delay (not merely: the server saw the request)
    await waitFor(() => retrying, 5_000, 'the retry to be scheduled');
    client.close();
    const error = await pending;
    expect(error).toBeInstanceOf(KubernetesClientClosedError);
    expect(((error as Error).cause as KubernetesApiError).status).toBe(429);
    expect(server.requests).toHaveLength(1);
  });

  it('a request whose credentials are being read when close() comes is not sent either', async () => {
    // a token file is read on the first request; close() lands while the KubeConfig is consulted
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 's', server: `http://127.0.0.1:${server.port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 's', cluster: 's', user: 'u' }],
      currentContext: 's',
    });
    server.handle((_req, res) => json(res, 200, widget()));
    const client = KubernetesClient.fromKubeConfig(kc);
    const pending = client.get(Widget, id).catch((e: unknown) => e);
    client.close();
    expect(await pending).toBeInstanceOf(KubernetesClientClosedError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('a raw server that resets every connection', () => {
  it('does not loop: a GET gives up after its retries with a connection error', async () => {
    const raw = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const port = (raw.address() as AddressInfo).port;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'r', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'r', cluster: 'r', user: 'u' }],
      currentContext: 'r',
    });
    let seen = 0;
    raw.on('request', () => seen++);
    const client = KubernetesClient.fromKubeConfig(kc, { retry: { initialDelayMs: 1, maxDelayMs: 2 } });
    const error = await client.get(Widget, id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('connection');
    // 1 + 3 retries (a reset on a reused socket may add one fresh-socket resend each)
    expect(seen).toBeGreaterThanOrEqual(4);
    expect(seen).toBeLessThanOrEqual(8);
    client.close();
    raw.closeAllConnections();
    await new Promise<void>((resolve) => raw.close(() => resolve()));
  });
});
