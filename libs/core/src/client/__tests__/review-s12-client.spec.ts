// Review S12 (client): answers a real kube-apiserver, or a proxy in front of one, can give, scripted
// byte for byte, and what an operator author observes of them through the public client.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import {
  KubernetesApiError,
  KubernetesClientClosedError,
  KubernetesClientUsageError,
  KubernetesTransportError,
} from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { KubernetesClientOptions } from '../kubernetes-client.js';
import { json, ScriptedServer, waitFor } from './scripted-server.js';

type Widget = CustomResource<{ size: number }, { ready?: boolean }>;
const Widget = defineResource<Widget>({ group: 'example.tosdk.io', version: 'v1', kind: 'Widget' });
const id = new ResourceID('w1', 'ns1');
const widget = (): Widget => ({
  apiVersion: 'example.tosdk.io/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'ns1', resourceVersion: '7' },
  spec: { size: 1 },
});

describe('review S12: the client against scripted answers', () => {
  let server: ScriptedServer;
  const clients: KubernetesClient[] = [];
  const make = (options: KubernetesClientOptions = {}) => {
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(), {
      retry: false,
      requestTimeoutMs: 10_000,
      ...options,
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });

  it('[FINDING S12-CL3] Warning headers of answers and of a watch (several per field, escaped quotes, commas, a date, other codes) are reported once each', async () => {
    const seen: Array<[string, string]> = [];
    const client = make({ onWarning: (warning, request) => seen.push([warning, request.method]) });
    server.handle((req, res) => {
      if (req.query.get('watch') === 'true') {
        res.writeHead(200, {
          'Content-Type': 'application/json',
          Warning: '299 - "example.tosdk.io/v1 Widget is deprecated; use v2"',
        });
        res.end(`${JSON.stringify({ type: 'ADDED', object: widget() })}\n`);
        return;
      }
      json(res, 200, widget(), {
        Warning: [
          '299 - "unknown field \\"spec.colour\\", and more", 299 kube-apiserver "second" "Tue, 24 Nov 2026 09:00:00 GMT"',
          '199 - "a cache warning nobody reports"',
          '299 - "unknown field \\"spec.colour\\", and more"',
        ],
      });
    });
    await client.get(Widget, id);
    await client.mergePatch(Widget, id, { spec: { size: 2 } });
    for await (const event of client.watch(Widget, { namespace: 'ns1' })) expect(event.type).toBe('ADDED');
    expect(seen).toEqual([
      ['unknown field "spec.colour", and more', 'GET'],
      ['second', 'GET'],
      ['example.tosdk.io/v1 Widget is deprecated; use v2', 'GET'],
    ]);
  });

  it('[FINDING S12-CL2] an empty success body or a redirect (a proxy or login page in front of the API server) reads as "not found", an empty list or a TypeError', async () => {
    const client = make();
    const url = `http://127.0.0.1:${server.port}`;
    let answer: 'empty' | 'redirect' | 'html' = 'empty';
    server.handle((_req, res) => {
      if (answer === 'empty') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 0 });
        res.end();
      } else if (answer === 'redirect') {
        res.writeHead(302, { Location: 'https://login.example.com/?next=/api', 'Content-Length': 0 });
        res.end();
      } else {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end('<html><body>Please sign in</body></html>');
      }
    });
    const failures = async () => [
      await client.get(Widget, id).then(
        (value) => ({ value }),
        (error: unknown) => error,
      ),
      await client.list(Widget, { namespace: 'ns1' }).then(
        (value) => ({ value }),
        (error: unknown) => error,
      ),
      await client.create(Widget, widget()).then(
        (value) => ({ value }),
        (error: unknown) => error,
      ),
      await client.mergePatch(Widget, id, {}).then(
        (value) => ({ value }),
        (error: unknown) => error,
      ),
    ];

    // client-go: Result.Into of a 0-length body is an error, never an object or "absent"
    for (const error of await failures()) {
      expect(error).toBeInstanceOf(KubernetesTransportError);
      expect((error as KubernetesTransportError).failure).toBe('unparsable-body');
      expect((error as Error).message).toContain('answered 200 with an empty body');
      expect((error as Error).message).toContain(url);
    }
    // client-go: a status outside 200-206 is an error (transformResponse)
    answer = 'redirect';
    for (const error of await failures()) {
      expect(error).toBeInstanceOf(KubernetesApiError);
      expect((error as KubernetesApiError).status).toBe(302);
      expect((error as Error).message).toContain('https://login.example.com/?next=/api');
      expect((error as Error).message).toContain(url);
    }
    // a login page: the error names what came instead of JSON
    answer = 'html';
    for (const error of await failures()) {
      expect(error).toBeInstanceOf(KubernetesTransportError);
      expect((error as KubernetesTransportError).failure).toBe('unparsable-body');
      expect((error as Error).message).toContain('text/html');
      expect((error as Error).message).toContain('Please sign in');
      expect((error as Error).message).toContain(url);
    }
    // a delete answered 200 or 204 without a body is still "deleted" (undefined)
    answer = 'empty';
    expect(await client.delete(Widget, id)).toBeUndefined();
  });

  it('[FINDING S12-CL5] a name or namespace "..", "." or with "/" or "%" is sent as a path segment (a proxy normalizing dot segments turns a delete of ".." into a DELETE of the whole collection)', async () => {
    const client = make();
    server.handle((_req, res) => json(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' }));
    const CM = ResourceTypes.ConfigMap;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['name ".."', () => client.delete(CM, new ResourceID('..', 'ns1'))],
      ['name "."', () => client.get(CM, new ResourceID('.', 'ns1'))],
      ['name "a/b"', () => client.mergePatch(CM, new ResourceID('a/b', 'ns1'), {})],
      ['name "50%"', () => client.get(CM, new ResourceID('50%', 'ns1'))],
      ['namespace ".."', () => client.list(CM, { namespace: '..' })],
      ['namespace "a/b"', () => client.get(CM, new ResourceID('x', 'a/b'))],
      ['namespace ".." of a create', () => client.create(CM, { metadata: { name: 'x', namespace: '..' } })],
    ];
    for (const [what, call] of calls) {
      const error = await call().catch((e: unknown) => e);
      expect([what, error]).toEqual([what, expect.any(KubernetesClientUsageError)]);
      expect((error as Error).message).toMatch(/may not be|may not contain/);
    }
    // client-go's Request.Name and Namespace refuse them (IsValidPathSegmentName): nothing is sent
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it('[FINDING S12-CL6] a watch line that never ends (a proxy streaming something else, a runaway event) is buffered without bound', async () => {
    const client = make();
    const piece = 'x'.repeat(1024 * 1024);
    let written = 0;
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`{"type":"ADDED","object":{"metadata":{"name":"big"},"data":"`);
      // 40 MiB without a newline, written as the client reads, then the stream stays open
      const more = () => {
        while (written < 40 && res.write(piece)) written++;
        if (written < 40) {
          written++;
          res.once('drain', more);
        }
      };
      more();
    });
    const events = client.watch(Widget, { namespace: 'ns1' })[Symbol.asyncIterator]();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      events.next().then(
        () => 'an event',
        (error: unknown) => error,
      ),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve('still buffering after 20 s'), 20_000);
      }),
    ]);
    clearTimeout(timer);
    // client-go's streaming decoder refuses an event over 16 MiB (ErrObjectTooLarge)
    expect(outcome).toBeInstanceOf(KubernetesTransportError);
    expect((outcome as KubernetesTransportError).failure).toBe('unparsable-watch-event');
    expect((outcome as Error).message).toContain('16 MiB');
    expect(written).toBeLessThan(40);
    await events.return?.();
  }, 30_000);

  it('[FINDING S12-CL7] a 401 says only "401 Unauthorized: Unauthorized": neither the server, the kubeconfig user nor what to do', async () => {
    const client = make();
    server.handle((_req, res) =>
      json(res, 401, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      }),
    );
    const error = await client.get(Widget, id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesApiError);
    expect((error as KubernetesApiError).isUnauthorized()).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain(`http://127.0.0.1:${server.port}`);
    expect(message).toContain('user "tester"');
    expect(message).toMatch(/expired|revoked/);
    // the Status as the server sent it is kept
    expect((error as KubernetesApiError).body.message).toBe('Unauthorized');
  });

  it('[FINDING S12-CL8] a failure answer that is not a Kubernetes Status (an HTML page of a proxy or load balancer) reads as if the API server had said it', async () => {
    const client = make();
    server.handle((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html>\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>');
    });
    const error = await client.get(Widget, id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesApiError);
    const apiError = error as KubernetesApiError;
    expect([apiError.status, apiError.reason, apiError.isRetryable()]).toEqual([502, 'InternalError', true]);
    expect(apiError.message).toContain('502 Bad Gateway');
    expect(apiError.message).toContain('text/html');
    expect(apiError.message).toContain(`http://127.0.0.1:${server.port}`);
    expect(apiError.message).toMatch(/not a Kubernetes Status/);
  });

  it('[FINDING S12-CL12] the plain-text 404 kube-apiserver answers for a group or version it does not serve (a CustomResourceDefinition not installed) is blamed on a proxy in front of it', async () => {
    const client = make();
    // kube-apiserver's NotFound handler (apiserver util/notfoundhandler, Go's http.NotFound)
    server.handle((_req, res) => {
      res.writeHead(404, {
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end('404 page not found\n');
    });
    const error = await client.list(Widget, { namespace: 'ns1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesApiError);
    const apiError = error as KubernetesApiError;
    expect([apiError.status, apiError.reason, apiError.isNotFound()]).toEqual([404, 'NotFound', true]);
    expect(apiError.message).not.toMatch(/proxy|load balancer/);
    expect(apiError.message).toContain(
      `the API server at http://127.0.0.1:${server.port} does not serve this path: its group or version is not served`,
    );
    // get() keeps reading any 404 as an absent object, as fabric8's get does
    expect(await client.get(Widget, id).catch((e: unknown) => e)).toBeUndefined();
  });

  it('[FINDING S12-CL9] a request that timed out waiting for a free request slot (maxSockets all busy) says the API server did not answer, though it was never sent', async () => {
    const client = make({ maxSockets: 1, requestTimeoutMs: 1_000 });
    server.handle((req, res) => {
      // the first request holds the only slot: its answer trickles a byte at a time, so it is never idle
      if (req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const body = JSON.stringify(widget());
        let at = 0;
        const timer = setInterval(() => {
          if (at < body.length) res.write(body[at++]);
          else {
            clearInterval(timer);
            res.end();
          }
        }, 20);
        res.on('close', () => clearInterval(timer));
      } else json(res, 201, widget());
    });
    const slow = client.get(Widget, id).catch(() => undefined);
    const queued = await client
      .create(Widget, { ...widget(), metadata: { generateName: 'w-', namespace: 'ns1' } })
      .catch((e: unknown) => e);
    expect(queued).toBeInstanceOf(KubernetesTransportError);
    expect((queued as KubernetesTransportError).failure).toBe('timeout');
    const message = (queued as Error).message;
    expect(message).toContain('maxSockets');
    expect(message).toMatch(/not sent/);
    expect(server.requests.filter((r) => r.method === 'POST')).toEqual([]);
    server.destroyAll();
    await slow;
  });

  it('[FINDING S12-CL10] a watch answered 200 with an HTML page (a proxy or login page) fails with "a watch line is not JSON: <html>", naming neither the server nor the cause', async () => {
    const client = make();
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html>\n<html><body>Sign in to continue</body></html>\n');
    });
    const error = await (async () => {
      for await (const event of client.watch(Widget, { namespace: 'ns1' })) return event;
      return 'ended';
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('unparsable-watch-event');
    const message = (error as Error).message;
    expect(message).toContain(`http://127.0.0.1:${server.port}`);
    expect(message).toContain('text/html');
    expect(message).toContain('Sign in to continue');
  });

  it('[FINDING S12-CL11] while the credentials are read (an exec plugin still running), neither an abort nor close() ends a request or a watch', async () => {
    const releases: Array<() => void> = [];
    const slowCredentials = {
      getCurrentContext: () => 'c',
      getContextObject: () => ({}),
      getCurrentCluster: () => ({ name: 'c', server: `http://127.0.0.1:${server.port}` }),
      getCurrentUser: () => ({ name: 'u', exec: {} }),
      applyToHTTPSOptions: () =>
        new Promise<void>((resolve) => {
          releases.push(resolve);
        }),
    };
    server.handle((_req, res) => json(res, 200, widget()));
    const settledWithin = <T>(promise: Promise<T>, ms: number) => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        promise,
        new Promise<string>((resolve) => {
          timer = setTimeout(() => resolve(`still pending after ${ms} ms`), ms);
        }),
      ]).finally(() => clearTimeout(timer));
    };

    const client = KubernetesClient.fromKubeConfig(slowCredentials, { retry: false });
    clients.push(client);
    const controller = new AbortController();
    const aborted = client.get(Widget, id, { signal: controller.signal }).catch((e: unknown) => e);
    const watch = client
      .watch(Widget, { namespace: 'ns1', signal: controller.signal })
      [Symbol.asyncIterator]()
      .next()
      .catch((e: unknown) => e);
    const closed = client.get(Widget, id).catch((e: unknown) => e);
    await waitFor(() => releases.length > 0);
    controller.abort();
    const abortError = await settledWithin(aborted, 2_000);
    expect(abortError).toBeInstanceOf(KubernetesTransportError);
    expect((abortError as KubernetesTransportError).failure).toBe('aborted');
    // an aborted watch ends cleanly
    expect(await settledWithin(watch, 2_000)).toEqual({ value: undefined, done: true });
    client.close();
    expect(await settledWithin(closed, 2_000)).toBeInstanceOf(KubernetesClientClosedError);
    // the credentials that come afterwards send nothing
    for (const release of releases) release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(server.requests).toEqual([]);
  });
});
