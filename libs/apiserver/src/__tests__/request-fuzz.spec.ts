import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';

// A bounded, seeded fuzz of the API server's request parsing (issue 18): nesting, percent-escapes,
// huge and odd bodies, odd headers and content types. Every answer must be a Status of the right
// class (4xx for bad input, never 5xx), and after each batch the server still serves a normal
// create and get. A failure names the seed and the request, so it can be replayed.

/** mulberry32: a small seeded generator, uniform in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Answer {
  status: number;
  text: string;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const SEED = Number(process.env.TOSDK_FUZZ_SEED ?? 18_2026);
const TOKEN_HEADER = (server: KubeApiServer): string => `Bearer ${server.tokenOf()}`;

/** Sends one request with exactly these headers; fails (does not hang) after 20 s. */
function send(server: KubeApiServer, r: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: r.method,
        path: r.path,
        headers: r.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(20_000, () =>
      req.destroy(new Error(`no answer in 20 s to ${r.method} ${r.path.slice(0, 200)}`)),
    );
    req.on('error', reject);
    if (r.body) req.write(r.body);
    req.end();
  });
}

/** Writes raw bytes on a fresh connection and reads the answer until the server closes it. */
function sendRaw(server: KubeApiServer, bytes: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: server.port }, () => s.end(bytes));
    const chunks: Buffer[] = [];
    s.setTimeout(20_000, () => s.destroy(new Error('no answer in 20 s to a raw request')));
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', reject);
    s.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text });
    });
  });
}

/** JSON text of `levels` nested objects or arrays, mixed by `r`. */
function nested(r: () => number, levels: number): string {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i++) {
    if (r() < 0.5) {
      open += '{"k":';
      close = '}' + close;
    } else {
      open += '[';
      close = ']' + close;
    }
  }
  return open + '0' + close;
}

const PATHS = [
  '/api/v1/namespaces/default/configmaps',
  '/api/v1/namespaces/default/configmaps/fz',
  '/api/v1/namespaces/default/configmaps/fz/status',
  '/apis/apps/v1/namespaces/default/deployments',
  '/apis/apps/v1/namespaces/default/deployments/d',
  '/apis/fuzz.example.com/v1/namespaces/default/things',
  '/apis/fuzz.example.com/v1/namespaces/default/things/t',
  '/api/v1/namespaces',
  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/yaml',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+yaml; charset=latin1',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/vnd.kubernetes.protobuf',
  ';;;',
  'application/json;;==',
  '',
];
const ESCAPES = ['%', '%z', '%zz', '%2', '%%', '%G0', '%ff', '%00', '%2F', '%25', '%c3%28', '%e2%82', '%61'];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** Bodies a client may get wrong. */
function oddBody(r: () => number): Buffer {
  const valid = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fz' }, data: { a: 'b' } };
  switch (Math.floor(r() * 16)) {
    case 0:
      return Buffer.alloc(0);
    case 1:
      return Buffer.from('\ufeff' + JSON.stringify(valid)); // byte order mark
    case 2:
      return Buffer.from(Array.from({ length: 200 }, () => Math.floor(r() * 256)));
    case 3:
      return Buffer.from(`{"metadata":{"name":"fz"},"data":{"a":"\u0000\ud800"}}`);
    case 4:
      return Buffer.from('{"metadata":{"name":"fz","name":"other"},"metadata":{}}'); // duplicate keys
    case 5:
      return Buffer.from(
        '{"metadata":{"name":"fz"},"data":{"n":1e400,"m":-0,"o":123456789012345678901234567890}}',
      );
    case 6:
      return Buffer.from(JSON.stringify({ metadata: { name: 'fz', labels: { a: 'x'.repeat(100_000) } } }));
    case 7:
      return Buffer.from(`{"metadata":{"name":"fz"},"spec":${nested(r, 500 + Math.floor(r() * 20_000))}}`);
    case 8:
      return Buffer.from(`[${'{},'.repeat(50_000)}{}]`);
    case 9:
      return Buffer.from('null');
    case 10:
      return Buffer.from('"a string"');
    case 11:
      return Buffer.from('a: &x [*x]\nb: *x\n'); // a YAML alias loop
    case 12:
      return Buffer.from(`a: ${'['.repeat(3000)}`); // unclosed YAML flow nesting
    case 13:
      return Buffer.from(
        JSON.stringify([
          { op: 'add', path: '/data/~2', value: 1 },
          { op: 'move', from: '/a', path: '/a/b' },
        ]),
      );
    case 14:
      return Buffer.from(JSON.stringify({ ...valid, metadata: { name: '../../etc', namespace: 'Default' } }));
    default:
      return Buffer.from(
        JSON.stringify({ ...valid, metadata: { name: 'fz', resourceVersion: '-1', uid: 7 } }),
      );
  }
}

function withEscape(r: () => number, path: string): string {
  const parts = path.split('/');
  const i = 1 + Math.floor(r() * (parts.length - 1));
  parts[i] = parts[i] + pick(r, ESCAPES);
  return parts.join('/');
}

function randomRequest(r: () => number, server: KubeApiServer): FuzzRequest {
  const method = pick(r, METHODS);
  let path = pick(r, PATHS);
  if (r() < 0.3) path = withEscape(r, path);
  if (r() < 0.15)
    path += pick(r, [
      '?limit=-1',
      '?limit=x',
      '?watch=maybe',
      '?fieldManager=' + 'm'.repeat(200),
      '?dryRun=Nope',
      '?%zz=1',
      '?labelSelector=a%20in%20(',
    ]);
  const headers: Record<string, string> = { authorization: TOKEN_HEADER(server) };
  const type = pick(r, TYPES);
  if (type !== '') headers['content-type'] = type;
  if (r() < 0.2)
    headers.accept = pick(r, [
      '*/*',
      'application/json;as=Table;v=v1;g=meta.k8s.io',
      'text/html',
      'application/vnd.kubernetes.protobuf',
      ',,,',
    ]);
  if (r() < 0.1)
    headers.authorization = pick(r, [
      'Bearer',
      'Basic Zm9vOmJhcg==',
      'bearer  ' + server.tokenOf(),
      'Bearer x'.repeat(500),
    ]);
  if (r() < 0.1) headers['x-odd'] = 'v'.repeat(Math.floor(r() * 4000));
  let body: Buffer | undefined;
  if (method !== 'GET' && r() < 0.95) body = oddBody(r);
  if (body) headers['content-length'] = String(body.length);
  if (body && r() < 0.1) {
    delete headers['content-length'];
    headers['transfer-encoding'] = 'chunked';
  }
  return { method, path, headers, body };
}

describe('KubeApiServer request-parsing fuzz', () => {
  let server: KubeApiServer;
  let healthyChecks = 0;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.fuzz.example.com' },
      spec: {
        group: 'fuzz.example.com',
        scope: 'Namespaced',
        names: { kind: 'Thing', plural: 'things', singular: 'thing', listKind: 'ThingList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    const body = Buffer.from(JSON.stringify(crd));
    const res = await send(server, {
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      headers: { authorization: TOKEN_HEADER(server), 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  /** A normal create and get still work (the server keeps serving after a batch). */
  async function expectHealthy(): Promise<void> {
    const name = `healthy-${++healthyChecks}`;
    const body = Buffer.from(JSON.stringify({ metadata: { name }, data: { ok: 'yes' } }));
    const created = await send(server, {
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      headers: {
        authorization: TOKEN_HEADER(server),
        'content-type': 'application/json',
        'content-length': String(body.length),
      },
      body,
    });
    expect(created.status).toBe(201);
    const got = await send(server, {
      method: 'GET',
      path: `/api/v1/namespaces/default/configmaps/${name}`,
      headers: { authorization: TOKEN_HEADER(server) },
    });
    expect(got.status).toBe(200);
    expect(JSON.parse(got.text)).toMatchObject({ data: { ok: 'yes' } });
  }

  function expectStatusAnswer(what: string, res: Answer): void {
    const summary = { what, status: res.status, text: res.text.slice(0, 300) };
    expect(summary.status).toBeGreaterThanOrEqual(200);
    if (res.status >= 500) throw new Error(`a 5xx answer: ${JSON.stringify(summary)}`);
    // kube-apiserver's NotFound handler answers a path nothing serves in plain text (Go's http.NotFound)
    if (res.status === 404 && res.text === '404 page not found\n') return;
    if (res.status >= 400) {
      let st: unknown;
      try {
        st = JSON.parse(res.text);
      } catch {
        throw new Error(`a ${res.status} answer that is not a Status: ${JSON.stringify(summary)}`);
      }
      expect({ what, st }).toMatchObject({
        what,
        st: { kind: 'Status', status: 'Failure', code: res.status },
      });
    }
  }

  it('[RL-FUZZ] 6 seeded batches of 60 random requests: every answer is a Status below 500, the server keeps serving', async () => {
    const r = rng(SEED);
    for (let batch = 0; batch < 6; batch++) {
      for (let i = 0; i < 60; i++) {
        const req = randomRequest(r, server);
        const what = `seed ${SEED} batch ${batch} #${i}: ${req.method} ${req.path.slice(0, 120)} ${JSON.stringify(req.headers['content-type'])} body ${req.body?.length ?? 0} bytes`;
        expectStatusAnswer(what, await send(server, req));
      }
      await expectHealthy();
    }
  });

  it('deep nesting, bad escapes and oversized bodies get the specific 4xx answers', async () => {
    const auth = { authorization: TOKEN_HEADER(server) };
    const r = rng(SEED + 1);
    for (const levels of [1001, 5000, 50_000, 500_000]) {
      const body = Buffer.from(`{"metadata":{"name":"deep"},"data":${nested(r, levels)}}`);
      for (const [method, type] of [
        ['POST', 'application/json'],
        ['PATCH', 'application/merge-patch+json'],
        ['PATCH', 'application/strategic-merge-patch+json'],
        ['PATCH', 'application/apply-patch+yaml'],
      ]) {
        const path = `/api/v1/namespaces/default/configmaps${method === 'POST' ? '' : '/deep?fieldManager=f'}`;
        const res = await send(server, { method, path, headers: { ...auth, 'content-type': type }, body });
        expectStatusAnswer(`${levels} levels, ${method} ${type}`, res);
        expect({ levels, type, status: res.status }).toEqual({ levels, type, status: 400 });
      }
    }
    for (const esc of ['%', '%zz', '%2', '%G1']) {
      const res = await send(server, {
        method: 'GET',
        path: `/api/v1/namespaces/default/configmaps/a${esc}x`,
        headers: auth,
      });
      expectStatusAnswer(esc, res);
      expect(res.status).toBe(400);
    }
    // one byte over kube's 3 MiB body limit: 413, whether declared or streamed
    const huge = Buffer.alloc(3 * 1024 * 1024 + 1, 0x20);
    for (const chunked of [false, true]) {
      const headers: Record<string, string> = { ...auth, 'content-type': 'application/json' };
      if (!chunked) headers['content-length'] = String(huge.length);
      const res = await send(server, {
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        headers,
        body: huge,
      });
      expectStatusAnswer(`huge body, chunked ${chunked}`, res);
      expect(res.status).toBe(413);
    }
    await expectHealthy();
  });

  it('malformed HTTP (a broken request line, an oversized header) is answered with a 4xx Status and the connection closed', async () => {
    for (const raw of [
      'GARBAGE\r\n\r\n',
      'GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      `GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
      'GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n',
    ]) {
      const res = await sendRaw(server, raw);
      expect({ raw: raw.slice(0, 60), status: res.status }).toMatchObject({ raw: raw.slice(0, 60) });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const body = res.text.slice(res.text.indexOf('\r\n\r\n') + 4);
      expect(JSON.parse(body)).toMatchObject({ kind: 'Status', status: 'Failure', code: res.status });
    }
    await expectHealthy();
  });
});
