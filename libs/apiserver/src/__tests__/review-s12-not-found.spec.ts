import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review S12: the 404 of a path nothing serves. kube-apiserver has two: a built-in group version's
 * handler (go-restful, apiserver pkg/server/handler.go serviceErrorHandler ->
 * errors.NewGenericServerResponse) answers an unknown resource with a Status 'the server could not
 * find the requested resource'; everything else (an unknown group or version, a CRD's group, a
 * discovery path of neither, an unknown path) falls to the NotFound handler (apiserver
 * util/notfoundhandler: Go's http.NotFound), a plain-text '404 page not found'.
 */
describe('review s12: 404 of paths nothing serves', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[FINDING S12-NF1] an unknown resource of a built-in group version is a Status "the server could not find the requested resource" with empty details', async () => {
    for (const path of ['/api/v1/foos', '/apis/apps/v1/namespaces/default/foos/x']) {
      const r = await call(server, 'GET', path);
      expect(r.status).toBe(404);
      expect(r.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        details: {},
        code: 404,
      });
    }
  });

  it('[FINDING S12-NF2] an unknown group or version, its discovery and an unknown path are the plain-text "404 page not found", not a Status', async () => {
    for (const path of [
      '/apis/nope.example.com/v1/namespaces/default/things',
      '/apis/apps/v9/deployments',
      '/apis/nope.example.com/v1',
      '/apis/nope.example.com',
      '/api/v9',
      '/no/such/path',
    ]) {
      const r = await call(server, 'GET', path);
      expect([path, r.status, r.headers['content-type'], r.text]).toEqual([
        path,
        404,
        'text/plain; charset=utf-8',
        '404 page not found\n',
      ]);
    }
  });
});
