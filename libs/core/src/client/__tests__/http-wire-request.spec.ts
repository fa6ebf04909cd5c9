// The bytes of the requests the client writes on its direct connections (issue 15 §2: the lean
// HTTP/1.1 transport writes them itself): request line, headers once each, bodies and their byte
// lengths, and no way to smuggle a CR or LF into the head (header injection).
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import {
  KubernetesClientConfigError,
  KubernetesClientUsageError,
  KubernetesTransportError,
} from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { KubernetesClientOptions } from '../kubernetes-client.js';
import { headerValues, jsonResponse, RawServer, waitFor } from './raw-server.js';
import type { KubeconfigOptions, RawRequest } from './raw-server.js';

const CM = ResourceTypes.ConfigMap;
const NS = 'ns1';

function configMap(name: string, data?: Record<string, string>): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, resourceVersion: '1' },
    data,
  };
}

/**
 * An exec credential plugin (a shell one-liner) that prints `token`. Its kubeconfig needs
 * insecure-skip-tls-verify over plain http: client-node, which runs exec plugins, refuses http:
 * without it.
 */
function execPlugin(token: string): Record<string, unknown> {
  const credential = JSON.stringify({
    apiVersion: 'client.authentication.k8s.io/v1beta1',
    kind: 'ExecCredential',
    status: { token },
  });
  return {
    apiVersion: 'client.authentication.k8s.io/v1beta1',
    command: '/bin/sh',
    args: ['-c', `printf '%s' '${credential}'`],
    interactiveMode: 'Never',
  };
}

/** The head's header lines as `name: value` with lower-case names, in the order sent. */
function headerLines(req: RawRequest): string[] {
  return req.headers.map(([n, v]) => `${n.toLowerCase()}: ${v}`);
}

describe('request bytes on the wire (case 14)', () => {
  let server: RawServer;
  const clients: KubernetesClient[] = [];
  const newClient = (options: KubernetesClientOptions = {}, kubeconfig: KubeconfigOptions = {}) => {
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(kubeconfig), {
      retry: false,
      requestTimeoutMs: 15_000,
      userAgent: 'wire-test/1',
      ...options,
    });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    server = await RawServer.startPlain();
    server.handle((req) =>
      req.conn.write(
        jsonResponse(200, {
          ...configMap('answer'),
          // lists read `items`
          items: [],
          metadata: { name: 'answer', namespace: NS, resourceVersion: '1' },
        }),
      ),
    );
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await server.stop();
  });

  /** The first connection, once the client opened it. */
  const waitForConnection = async () => {
    await waitFor(() => server.connections.length > 0, 'a connection');
    return server.connections[0];
  };

  /** Headers a request without a body carries (Connection may be left out: keep-alive is HTTP/1.1's default). */
  const baseHeaders = () => [
    `host: 127.0.0.1:${server.port}`,
    'user-agent: wire-test/1',
    'authorization: Bearer raw-token',
    'accept: application/json',
  ];
  const withoutConnection = (lines: string[]) => lines.filter((l) => l !== 'connection: keep-alive');

  it('a GET: the request line, each header exactly once, no body framing headers, nothing after the head', async () => {
    const client = newClient();
    await client.get(CM, new ResourceID('a', NS));
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req.head.split('\r\n')[0]).toBe(`GET /api/v1/namespaces/${NS}/configmaps/a HTTP/1.1`);
    expect(withoutConnection(headerLines(req)).sort()).toEqual(baseHeaders().sort());
    expect(headerValues(req, 'connection').every((v) => v === 'keep-alive')).toBe(true);
    expect(headerValues(req, 'connection').length).toBeLessThanOrEqual(1);
    // every byte the connection got is this head
    expect(req.conn.received).toBe(req.head);
    expect(req.head.endsWith('\r\n\r\n')).toBe(true);
    expect(req.head.slice(0, -4)).not.toMatch(/\r\n\r\n|[^\r]\n|\r[^\n]/);
  });

  it('a patch with a multi-byte body: Content-Type, Content-Length in bytes, the body exactly as UTF-8 and nothing more', async () => {
    const client = newClient();
    const patch = { data: { label: 'größe ✓ 日本 🎉', quote: '"\\\n' } };
    await client.mergePatch(CM, new ResourceID('a', NS), patch);
    const [req] = server.requests;
    const expectedBody = Buffer.from(JSON.stringify(patch));
    expect(req.head.split('\r\n')[0]).toBe(`PATCH /api/v1/namespaces/${NS}/configmaps/a HTTP/1.1`);
    expect(withoutConnection(headerLines(req)).sort()).toEqual(
      [
        ...baseHeaders(),
        'content-type: application/merge-patch+json',
        `content-length: ${expectedBody.length}`,
      ].sort(),
    );
    expect(expectedBody.length).toBeGreaterThan(JSON.stringify(patch).length);
    expect(req.body.equals(expectedBody)).toBe(true);
    expect(
      Buffer.from(req.conn.received, 'latin1').equals(
        Buffer.concat([Buffer.from(req.head, 'latin1'), expectedBody]),
      ),
    ).toBe(true);
    expect(headerValues(req, 'transfer-encoding')).toEqual([]);
  });

  it('requests one after the other on one kept-alive socket: each head and body framed exactly, back to back', async () => {
    const client = newClient();
    await client.create(CM, configMap('one', { v: 'ü' }));
    await client.get(CM, new ResourceID('one', NS));
    await client.delete(CM, new ResourceID('one', NS), { propagationPolicy: 'Foreground' });
    await client.apply(
      CM,
      { metadata: { name: 'one', namespace: NS }, data: { v: '✓' } },
      { fieldManager: 'wire' },
    );
    expect(server.connections).toHaveLength(1);
    const reqs = server.requests;
    expect(reqs.map((r) => r.head.split('\r\n')[0])).toEqual([
      `POST /api/v1/namespaces/${NS}/configmaps HTTP/1.1`,
      `GET /api/v1/namespaces/${NS}/configmaps/one HTTP/1.1`,
      `DELETE /api/v1/namespaces/${NS}/configmaps/one HTTP/1.1`,
      `PATCH /api/v1/namespaces/${NS}/configmaps/one?fieldManager=wire&force=true HTTP/1.1`,
    ]);
    // the connection's bytes are exactly the four requests, nothing in between
    const wire = Buffer.concat(reqs.map((r) => Buffer.concat([Buffer.from(r.head, 'latin1'), r.body])));
    expect(Buffer.from(reqs[0].conn.received, 'latin1').equals(wire)).toBe(true);
    for (const r of reqs) {
      const length = headerValues(r, 'content-length');
      expect(length).toEqual(r.body.length > 0 ? [String(r.body.length)] : []);
    }
    expect(JSON.parse(reqs[2].body.toString('utf8'))).toMatchObject({
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
    });
    expect(headerValues(reqs[3], 'content-type')).toEqual(['application/apply-patch+yaml']);
  });

  it('a watch: its request line and query, each header once, the metadata-only Accept when asked', async () => {
    server.handle((req) =>
      req.conn.write(
        Buffer.from(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        ),
      ),
    );
    const client = newClient();
    for await (const event of client.watch(CM, {
      namespace: NS,
      resourceVersion: '42',
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
      labelSelector: 'app=x',
    }))
      void event;
    for await (const event of client.watch(CM, { namespace: NS, metadataOnly: true })) void event;
    const [full, meta] = server.requests;
    expect(full.method).toBe('GET');
    expect(full.path).toBe(`/api/v1/namespaces/${NS}/configmaps`);
    expect(Object.fromEntries(full.query)).toEqual({
      watch: 'true',
      resourceVersion: '42',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '300',
      labelSelector: 'app=x',
    });
    expect(withoutConnection(headerLines(full)).sort()).toEqual(baseHeaders().sort());
    expect(headerValues(meta, 'accept')).toHaveLength(1);
    expect(headerValues(meta, 'accept')[0]).toMatch(
      /^application\/json;as=PartialObjectMetadata;g=meta\.k8s\.io;v=v1/,
    );
    expect(full.body.length + meta.body.length).toBe(0);
  });

  it('a list with selectors, limit and continue: the query is percent-encoded and decodes to exactly the values given', async () => {
    const client = newClient();
    const options = {
      namespace: NS,
      labelSelector: 'app in (a,b),tier!=x,größe',
      fieldSelector: 'metadata.name=a b',
      limit: 5,
      continue: 'eyJ2Ijo+/=x&y',
    };
    await client.list(CM, options);
    const [req] = server.requests;
    const requestLine = req.head.split('\r\n')[0];
    expect(requestLine).toMatch(/^GET \/api\/v1\/namespaces\/ns1\/configmaps\?\S+ HTTP\/1\.1$/);
    // nothing outside printable ASCII in the target
    expect(req.target).toMatch(/^[\x21-\x7e]+$/);
    expect(req.query.get('labelSelector')).toBe(options.labelSelector);
    expect(req.query.get('fieldSelector')).toBe(options.fieldSelector);
    expect(req.query.get('limit')).toBe('5');
    expect(req.query.get('continue')).toBe(options.continue);
  });

  it('basic authentication from the kubeconfig: one Authorization header with the base64 of user:password', async () => {
    const client = newClient({}, { token: null, username: 'admin', password: 'pä:ss' });
    await client.get(CM, new ResourceID('a', NS));
    const [req] = server.requests;
    expect(headerValues(req, 'authorization')).toEqual([
      `Basic ${Buffer.from('admin:pä:ss').toString('base64')}`,
    ]);
  });

  it('a rotated token file: a 401 on the kept socket, the file read again, the request sent once more with the new token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tosdk-token-'));
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, 'first\n');
      let valid = 'first';
      server.handle((req) =>
        req.conn.write(
          headerValues(req, 'authorization')[0] === `Bearer ${valid}`
            ? jsonResponse(200, configMap(decodeURIComponent(req.path.split('/').at(-1)!)))
            : jsonResponse(
                401,
                { kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 },
                [],
                'Unauthorized',
              ),
        ),
      );
      const client = newClient({}, { tokenFile });
      expect((await client.get(CM, new ResourceID('a', NS)))?.metadata?.name).toBe('a');
      writeFileSync(tokenFile, 'second\n');
      valid = 'second';
      expect((await client.get(CM, new ResourceID('b', NS)))?.metadata?.name).toBe('b');
      expect(
        server.requests.map((r) => `${headerValues(r, 'authorization').join('|')}@${r.conn.id}`),
      ).toEqual(['Bearer first@0', 'Bearer first@0', 'Bearer second@0']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an exec credential plugin (through @kubernetes/client-node): its token in one Authorization header', async () => {
    const client = newClient({}, { token: null, insecure: true, user: { exec: execPlugin('exec-token-1') } });
    await client.get(CM, new ResourceID('a', NS));
    await client.get(CM, new ResourceID('b', NS));
    expect(server.requests.map((r) => headerValues(r, 'authorization'))).toEqual([
      ['Bearer exec-token-1'],
      ['Bearer exec-token-1'],
    ]);
  });

  it('a 5 MB multi-byte body to a server that reads slowly arrives exactly, with its byte length', async () => {
    // the server stops reading for a while so that the client's writes back up
    server.handle((req) => req.conn.write(jsonResponse(201, configMap('big'))));
    const client = newClient();
    const data: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) data[`k${i}`] = `${i}:${'ü✓'.repeat(1000)}`;
    const object = configMap('big', data);
    const paused = waitForConnection().then((conn) => {
      conn.socket.pause();
      setTimeout(() => conn.socket.resume(), 200);
    });
    const created = client.create(CM, object);
    await paused;
    expect((await created).metadata?.name).toBe('big');
    const [req] = server.requests;
    const expected = Buffer.from(JSON.stringify(object));
    expect(expected.length).toBeGreaterThan(5_000_000);
    expect(headerValues(req, 'content-length')).toEqual([String(expected.length)]);
    expect(req.body.equals(expected)).toBe(true);
  });

  // 43760d7 refused it with a KubernetesClientConfigError blaming the kubeconfig's user ("fix the
  // token, token file, exec plugin output or header in the kubeconfig"); 7e3637f checks the option
  // when the client is made.
  it('a User-Agent option with CR/LF: a typed error that names the userAgent option, not the kubeconfig', async () => {
    const error = await (async () =>
      newClient({ userAgent: 'ua\r\nX: y' }).get(CM, new ResourceID('a', NS)))().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubernetesClientUsageError);
    expect((error as Error).message).toContain('userAgent');
    expect(server.requests).toHaveLength(0);
  });

  it('large bodies of characters outside the BMP (surrogate pairs in JavaScript) arrive byte-exact, wherever the writes split them', async () => {
    server.handle((req) => req.conn.write(jsonResponse(201, configMap('emoji'))));
    const client = newClient();
    // the same body behind heads of three lengths: some write boundary falls inside a pair
    const bodies = ['', 'x', 'xy'].map((pad) => configMap(`emoji${pad}`, { text: '🎉'.repeat(100_000) }));
    for (const body of bodies) await client.create(CM, body);
    expect(server.requests).toHaveLength(3);
    server.requests.forEach((req, i) => {
      const expected = Buffer.from(JSON.stringify(bodies[i]));
      expect(headerValues(req, 'content-length')).toEqual([String(expected.length)]);
      expect(req.body.equals(expected)).toBe(true);
    });
  });

  describe('no CR or LF reaches the head (header injection)', () => {
    /** What a user may pass that ends up in the request line or a header. */
    const attempts: Array<[string, (server: RawServer) => Promise<unknown>]> = [
      ['an object name', async () => newClient().get(CM, new ResourceID('a\r\nX-Injected: name', NS))],
      ['a namespace', async () => newClient().list(CM, { namespace: 'ns\r\nX-Injected: namespace' })],
      [
        'a label selector',
        async () => newClient().list(CM, { namespace: NS, labelSelector: 'a=b\r\nX-Injected: selector' }),
      ],
      [
        'a raw request path',
        async () => newClient().request('/api/v1\r\nX-Injected: path\r\n\r\nGET /smuggled'),
      ],
      [
        'a raw request query value',
        async () => newClient().request('/api/v1', { query: { q: 'x\r\nX-Injected: query' } }),
      ],
      [
        'the User-Agent option',
        async () => newClient({ userAgent: 'ua\r\nX-Injected: ua' }).get(CM, new ResourceID('a', NS)),
      ],
      [
        'a raw request method (from JavaScript, past the type)',
        async () =>
          newClient().request('/api/v1', { method: 'GET /x HTTP/1.1\r\nX-Injected: method\r\nY:' as never }),
      ],
      [
        'a raw request content type',
        async () =>
          newClient().request('/api/v1', {
            method: 'POST',
            body: {},
            contentType: 'application/json\r\nX-Injected: content-type',
          }),
      ],
      [
        // the type allows 'status' only: a JavaScript caller (or a cast) can pass anything
        'a patch subresource (from JavaScript, past the type)',
        async () =>
          newClient().mergePatch(
            CM,
            new ResourceID('a', NS),
            {},
            { subresource: 'status\r\nX-Injected: sub' as 'status' },
          ),
      ],
      [
        'an apply field manager',
        async () =>
          newClient().apply(
            CM,
            { metadata: { name: 'a', namespace: NS } },
            { fieldManager: 'fm\r\nX-Injected: fm' },
          ),
      ],
      [
        "an exec plugin's token",
        async () =>
          newClient(
            {},
            { token: null, insecure: true, user: { exec: execPlugin('tok\r\nX-Injected: exec') } },
          ).get(CM, new ResourceID('a', NS)),
      ],
      [
        "the kubeconfig user's token",
        async () => newClient({}, { token: 'tok\r\nX-Injected: token' }).get(CM, new ResourceID('a', NS)),
      ],
      [
        "a token file's token (read again on every refresh)",
        async () => {
          const dir = mkdtempSync(join(tmpdir(), 'tosdk-token-'));
          try {
            const tokenFile = join(dir, 'token');
            writeFileSync(tokenFile, 'tok\r\nX-Injected: file\n');
            return await newClient({}, { tokenFile }).get(CM, new ResourceID('a', NS));
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ],
      [
        'a token file rotated (after a 401) to a token',
        async () => {
          const dir = mkdtempSync(join(tmpdir(), 'tosdk-token-'));
          try {
            const tokenFile = join(dir, 'token');
            writeFileSync(tokenFile, 'good\n');
            const client = newClient({}, { tokenFile });
            server.handle((req) =>
              req.conn.write(
                req.seq === 0
                  ? jsonResponse(200, configMap('a'))
                  : jsonResponse(401, { kind: 'Status', status: 'Failure', code: 401 }, [], 'Unauthorized'),
              ),
            );
            await client.get(CM, new ResourceID('a', NS));
            server.requests.length = 0;
            writeFileSync(tokenFile, 'bad\r\nX-Injected: rotated\n');
            return await client.get(CM, new ResourceID('a', NS));
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ],
    ];

    // node:http (before 8877779) refused CR/LF in the raw path, a content type, a subresource, the
    // User-Agent and the token with a raw TypeError (ERR_UNESCAPED_CHARACTERS "Request path contains
    // unescaped characters", ERR_INVALID_CHAR "Invalid character in header content") thrown out of
    // the client's method: nothing sent, but not a typed error naming the option. The wire
    // transport (8877779) refuses them with typed errors, except a raw request's content type and
    // method, which it pasted into the head unchecked (CR/LF injected header lines) until 43760d7.

    for (const [what, attempt] of attempts) {
      it(`${what} with CR/LF never reaches the wire raw (no injected header, no smuggled request)`, async () => {
        const outcome = await attempt(server).then(
          () => 'sent',
          (error: unknown) => error,
        );
        for (const conn of server.connections) {
          expect(conn.received).not.toMatch(/\r\nX-Injected:/i);
          expect(conn.received).not.toMatch(/smuggled/);
        }
        for (const req of server.requests) {
          expect(req.headers.some(([n]) => n.toLowerCase() === 'x-injected')).toBe(false);
          expect(req.target).not.toMatch(/[\r\n]/);
        }
        if (outcome === 'sent') expect(server.requests).toHaveLength(1);
        // an error (Node's own come from another realm than Jest's Error)
        else expect(typeof (outcome as Error).message).toBe('string');
      });

      it(`${what} with CR/LF: sent encoded, or refused with a typed client error`, async () => {
        const outcome = await attempt(server).then(
          () => 'sent',
          (error: unknown) => error,
        );
        if (outcome === 'sent') {
          // sent: then with the value encoded (the other test checks the bytes in detail)
          expect(server.connections.map((c) => c.received).join('')).not.toMatch(/\r\nX-Injected:/i);
          return;
        }
        const typed =
          outcome instanceof KubernetesClientUsageError ||
          outcome instanceof KubernetesClientConfigError ||
          outcome instanceof KubernetesTransportError;
        expect({ typed, outcome }).toEqual({ typed: true, outcome });
        expect(typeof (outcome as { code?: unknown }).code).toBe('string');
      });
    }
  });
});
