// Review S11: kube's ValidateFieldManager refuses a field manager with a character that is not
// printable (unicode.IsPrint: a control character, a tab, a non-breaking space), so an operator whose
// field manager is built from a name with such a character gets a 422 on a cluster.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

describe('review S11: field manager names', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[FINDING S11-FM1] a field manager with a tab is a 422 naming the character and its byte position; printable ones pass', async () => {
    const path = (fm: string) =>
      `/api/v1/namespaces/default/configmaps?fieldManager=${encodeURIComponent(fm)}`;
    const res = await call(server, 'POST', path('op\tx'), { metadata: { name: 'fm-tab' } });
    expect(res.status).toBe(422);
    expect(res.json()).toMatchObject({
      reason: 'Invalid',
      message:
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "op\\tx": invalid character U+0009 (at position 2)',
      details: {
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'fieldManager',
            message: 'Invalid value: "op\\tx": invalid character U+0009 (at position 2)',
          },
        ],
      },
    });
    // the position counts bytes (é is two), and a no-break space is not printable
    const nbsp = await call(server, 'POST', path('é\u00a0'), { metadata: { name: 'fm-nbsp' } });
    expect(nbsp.status).toBe(422);
    expect(nbsp.json<{ message: string }>().message).toContain('invalid character U+00A0 (at position 2)');
    for (const ok of ['kubectl-client-side-apply', 'my operator (v1.2)', 'ünïcödé-✓']) {
      const r = await call(server, 'POST', path(ok), { metadata: { name: `fm-${ok.length}` } });
      expect([ok, r.status]).toEqual([ok, 201]);
    }
  });
});
