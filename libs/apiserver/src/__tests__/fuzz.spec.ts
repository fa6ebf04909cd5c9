import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/** A small deterministic PRNG so a failure can be replayed from its seed. */
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

const PATHS = [
  '/api/v1/namespaces/default/configmaps',
  '/api/v1/namespaces/default/configmaps/fz',
  '/api/v1/namespaces/default/configmaps/fz/status',
  '/api/v1/namespaces/default/pods/p/status',
  '/apis/apps/v1/namespaces/default/deployments/d',
  '/apis/apps/v1/namespaces/nope/deployments',
  '/api/v1/namespaces',
  '/api/v1/namespaces/x%zz',
  '/apis/unknown.io/v1/things',
  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
  '/api/v1/watch/namespaces/default/configmaps?timeoutSeconds=1',
  '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(',
  '/api/v1/namespaces/default/configmaps?limit=-1',
  '/api/v1/namespaces/default/configmaps?continue=garbage',
  '/api/v1/namespaces/default/configmaps?resourceVersion=abc&resourceVersionMatch=Exact',
  '/apis',
  '/openapi/v3/apis/nope/v1',
  '/a/b/c/d/e/f',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const TYPES = [
  'application/json',
  'application/yaml',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'text/plain',
  'application/vnd.kubernetes.protobuf',
];

function randomBody(r: () => number): string {
  const pick = Math.floor(r() * 9);
  switch (pick) {
    case 0:
      return '';
    case 1:
      return '{"metadata":{"name":"fz"}';
    case 2:
      return JSON.stringify({ metadata: { name: 'fz', labels: { 'bad key!': 'v' } }, data: { a: 1 } });
    case 3:
      return JSON.stringify([{ op: 'replace', path: '/nope/deeper', value: 1 }, { op: 'bogus' }]);
    case 4:
      return 'key: [unclosed\n  - : :';
    case 5:
      return JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'fz', finalizers: [1, 2] },
        data: 'str',
      });
    case 6:
      return JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'x.y' },
        spec: { versions: 'no' },
      });
    case 7:
      return Buffer.from(Array.from({ length: 64 }, () => Math.floor(r() * 256))).toString('latin1');
    default:
      return JSON.stringify({
        metadata: { name: 'fz', generateName: 'a', namespace: 'other', resourceVersion: 'x' },
        spec: null,
        status: [],
      });
  }
}

describe('KubeApiServer under bad input', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-FUZZ] 300 random requests each get a Status (or a valid answer) and the server stays healthy', async () => {
    const r = rng(20261122);
    for (let i = 0; i < 300; i++) {
      const method = METHODS[Math.floor(r() * METHODS.length)];
      const path = PATHS[Math.floor(r() * PATHS.length)];
      const type = TYPES[Math.floor(r() * TYPES.length)];
      const body = method === 'GET' ? undefined : randomBody(r);
      const res = await call(server, method, path, body, { contentType: type });
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(600);
      expect(res.status).not.toBe(500);
      // a path nothing serves gets kube-apiserver's plain-text 404 (Go's http.NotFound), not a Status
      const pageNotFound = res.status === 404 && res.text === '404 page not found\n';
      if (res.status >= 400 && !path.includes('watch') && !pageNotFound) {
        const st = res.json<{ kind: string; status: string; code: number }>();
        expect(st).toMatchObject({ kind: 'Status', status: 'Failure', code: res.status });
      }
    }
    expect((await call(server, 'GET', '/healthz', undefined, { token: null })).status).toBe(200);
  });
});
