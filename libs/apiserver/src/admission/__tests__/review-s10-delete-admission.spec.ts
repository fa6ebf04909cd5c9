/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call } from '../../__tests__/http-helper.js';
import { TestWebhookServer } from './webhook-test-server.js';

/**
 * Review (session 10): DELETE under admission webhooks. kube-apiserver decodes and validates a
 * DELETE's options first (endpoints/handlers/delete.go: from the body when there is one, which is
 * how client-go and kubectl send them, `kubectl delete --dry-run=server` included), then admits it
 * with those options: the AdmissionReview's `dryRun` and `options` are the request's.
 */
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const CM = '/api/v1/namespaces/default/configmaps';

describe('review s10: DELETE under admission', () => {
  let server: KubeApiServer;
  let hooks: TestWebhookServer;
  beforeAll(async () => {
    [server, hooks] = await Promise.all([KubeApiServer.start(), TestWebhookServer.start()]);
    hooks.on('/allow', () => ({ allowed: true }));
    expect(
      (
        await call(server, 'POST', VWC, {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'deletes' },
          webhooks: [
            {
              name: 'deletes.example.com',
              clientConfig: hooks.clientConfig('/allow'),
              rules: [
                { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
              ],
              sideEffects: 'NoneOnDryRun',
              admissionReviewVersions: ['v1'],
            },
          ],
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await Promise.all([server.stop(), hooks.stop()]);
  });
  beforeEach(() => {
    hooks.reviews.length = 0;
  });
  const create = async (name: string) =>
    expect((await call(server, 'POST', CM, { metadata: { name, labels: { s10: name } } })).status).toBe(201);

  it('[FINDING S10-OP6] a dry-run DELETE whose options are in its body is a dry run for the webhooks too', async () => {
    await create('dry');
    const r = await call(server, 'DELETE', `${CM}/dry`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      dryRun: ['All'],
      propagationPolicy: 'Background',
    });
    expect(r.status).toBe(200);
    expect((await call(server, 'GET', `${CM}/dry`)).status).toBe(200);
    const reviews = hooks.at('/allow');
    expect(reviews).toHaveLength(1);
    const request: any = reviews[0]?.request;
    // a webhook declared NoneOnDryRun skips its side effects only when told it is a dry run
    expect(request.dryRun).toBe(true);
    expect(request.options).toMatchObject({
      kind: 'DeleteOptions',
      dryRun: ['All'],
      propagationPolicy: 'Background',
    });
  });

  it('[FINDING S10-OP6] a deletecollection dry run in the body is a dry run for the webhooks, and deletes nothing', async () => {
    await create('dry-all');
    const r = await call(server, 'DELETE', `${CM}?labelSelector=s10%3Ddry-all`, { dryRun: ['All'] });
    expect(r.status).toBe(200);
    expect((await call(server, 'GET', `${CM}/dry-all`)).status).toBe(200);
    const reviews = hooks.at('/allow');
    expect(reviews).toHaveLength(1);
    expect(reviews[0]?.request.dryRun).toBe(true);
  });

  it('[FINDING S10-OP6] invalid delete options are refused (422) before any webhook is called', async () => {
    await create('bad');
    const one = await call(server, 'DELETE', `${CM}/bad`, { propagationPolicy: 'Sideways' });
    expect(one.status).toBe(422);
    const all = await call(server, 'DELETE', `${CM}?labelSelector=s10%3Dbad`, {
      propagationPolicy: 'Sideways',
    });
    expect(all.status).toBe(422);
    expect(all.json<any>().details.kind).toBe('DeleteOptions');
    expect(hooks.at('/allow')).toHaveLength(0);
    expect((await call(server, 'GET', `${CM}/bad`)).status).toBe(200);
  });
});
