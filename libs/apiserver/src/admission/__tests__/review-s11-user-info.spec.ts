// Review S11: the userInfo an admission webhook receives is the user the request acts as, with the
// uid and extras impersonation named (kube's AdmissionReview request.userInfo: username, uid, groups,
// extra), as a webhook that records or checks who changed an object reads it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call } from '../../__tests__/http-helper.js';
import { TestWebhookServer } from './webhook-test-server.js';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

describe('review S11: admission userInfo', () => {
  let server: KubeApiServer;
  let hooks: TestWebhookServer;

  beforeAll(async () => {
    [server, hooks] = await Promise.all([KubeApiServer.start(), TestWebhookServer.start()]);
    hooks.on('/allow', () => ({ allowed: true }));
    const created = await call(server, 'POST', VWC, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'who' },
      webhooks: [
        {
          name: 'who.example.com',
          clientConfig: hooks.clientConfig('/allow'),
          rules: [
            { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
          ],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await Promise.all([server.stop(), hooks.stop()]);
  });

  it('[FINDING S11-RB3] a webhook sees the impersonated user with its uid, groups and extras', async () => {
    const res = await call(
      server,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-carol' } },
      {
        headers: {
          'Impersonate-User': 'carol',
          'Impersonate-Uid': 'uid-carol',
          'Impersonate-Group': ['devs', 'ops'],
          'Impersonate-Extra-Scopes': ['read', 'write'],
        },
      },
    );
    expect(res.status).toBe(201);
    const review = hooks.reviews.at(-1)?.review as unknown as { request: { userInfo: unknown } };
    expect(review.request.userInfo).toEqual({
      username: 'carol',
      uid: 'uid-carol',
      groups: ['devs', 'ops', 'system:authenticated'],
      extra: { scopes: ['read', 'write'] },
    });
  });
});
