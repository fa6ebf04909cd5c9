import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review (session 10): the request log names what kube-apiserver's RequestInfo names. A list or
 * watch whose field selector requires metadata.name=<name> (an informer of one object) is a request
 * about that name: the authorizer sees it (S10-RB4), and so must the log that RBAC proofs replay
 * against generated Roles, or a Role with resourceNames reads as insufficient.
 */
describe('review s10: request log', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[FINDING S10-RL1] a list or watch selecting one object by metadata.name is logged with that name', async () => {
    const CM = '/api/v1/namespaces/default/configmaps';
    expect((await call(server, 'GET', `${CM}?fieldSelector=metadata.name%3Done`)).status).toBe(200);
    expect(server.requests.log.at(-1)).toMatchObject({ verb: 'list', resource: 'configmaps', name: 'one' });
    expect(
      (await call(server, 'GET', `${CM}?fieldSelector=metadata.name%3D%3Dtwo&watch=1&timeoutSeconds=1`))
        .status,
    ).toBe(200);
    expect(server.requests.log.at(-1)).toMatchObject({ verb: 'watch', resource: 'configmaps', name: 'two' });
    // any other selection names nothing
    expect((await call(server, 'GET', `${CM}?fieldSelector=metadata.name!%3Done`)).status).toBe(200);
    expect(server.requests.log.at(-1)?.name).toBeUndefined();
  });
});
