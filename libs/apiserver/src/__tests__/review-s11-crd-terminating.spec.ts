// Review S11 (terminating CRDs): what kube-apiserver 1.32 answers a create of a custom resource while
// its CRD is being deleted (apiextensions-apiserver v0.32.1).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const MERGE = { contentType: 'application/merge-patch+json' };

describe('review S11: custom resources of a terminating CRD', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  // apiextensions-apiserver v0.32.1 pkg/apiserver/customresource_handler.go serveResource: a create while
  // the CRD's Terminating condition is true is answered with apierrors.NewMethodNotSupported (405,
  // MethodNotAllowed, details group and resource as kind) whose message is replaced by "create not allowed
  // while custom resource definition is terminating"; reads, updates and deletes go on.
  it('[FINDING S11-OR7] a custom resource is created while its CRD is terminating (waiting on its instances), where kube answers 405 MethodNotAllowed', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'sprockets.or7.example.com' },
      spec: {
        group: 'or7.example.com',
        scope: 'Namespaced',
        names: { kind: 'Sprocket', plural: 'sprockets', singular: 'sprocket', listKind: 'SprocketList' },
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
    expect((await call(server, 'POST', CRDS, crd)).status).toBe(201);
    const S = '/apis/or7.example.com/v1/namespaces/default/sprockets';
    await waitFor(async () => (await call(server, 'GET', S)).status === 200);
    const item = (name: string) => ({
      apiVersion: 'or7.example.com/v1',
      kind: 'Sprocket',
      metadata: { name, finalizers: ['example.com/hold'] },
    });
    expect((await call(server, 'POST', S, item('held'))).status).toBe(201);
    expect((await call(server, 'DELETE', `${CRDS}/${crd.metadata.name}`)).status).toBe(200);
    const refused = await call(server, 'POST', S, item('late'));
    expect(refused.status).toBe(405);
    expect(refused.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'create not allowed while custom resource definition is terminating',
      reason: 'MethodNotAllowed',
      details: { group: 'or7.example.com', kind: 'sprockets' },
      code: 405,
    });
    expect((await call(server, 'GET', `${S}/late`)).status).toBe(404);
    // the held instance can still be read and updated: its finalizer goes and so does the CRD
    expect((await call(server, 'GET', `${S}/held`)).status).toBe(200);
    expect((await call(server, 'PATCH', `${S}/held`, { metadata: { finalizers: null } }, MERGE)).status).toBe(
      200,
    );
    await waitFor(async () => (await call(server, 'GET', `${CRDS}/${crd.metadata.name}`)).status === 404);
  });
});
