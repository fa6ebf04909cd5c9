import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call } from '../../__tests__/http-helper.js';
import { labelSelectorFromObject, selectorToString } from '../index.js';

/**
 * Review (session 11) of label selectors as text, against kube-apiserver 1.32. Sources read:
 * k8s.io/apimachinery pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector), pkg/labels/selector.go
 * (internalSelector.Add sorts by key, Requirement.String sorts the values), kubernetes
 * pkg/registry/apps/{deployment,replicaset,statefulset}/storage (scaleFrom*: Status.Selector is
 * `LabelSelectorAsSelector(spec.selector).String()`).
 *
 * The conversion in this folder agrees with kube; the scale subresource (internal/storage/scale.ts)
 * built its own string, and now writes it with this folder's conversion.
 */
describe('review s11: label selectors as text', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  const selector = {
    matchLabels: { tier: 'web', app: 'shop' },
    matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }],
  };
  const KUBE_TEXT = 'app=shop,env in (dev,prod),tier=web';

  it('the selectors library writes a metav1.LabelSelector as kube does', () => {
    expect(selectorToString(labelSelectorFromObject(selector))).toBe(KUBE_TEXT);
  });

  it('[FINDING S11-SEL12] a Deployment\'s scale status.selector keeps matchLabels in written order and set values unsorted ("tier=web,app=shop,env in (prod,dev)"); kube writes "app=shop,env in (dev,prod),tier=web"', async () => {
    const d = await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'shop' },
      spec: {
        selector,
        template: {
          metadata: { labels: { tier: 'web', app: 'shop', env: 'prod' } },
          spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
        },
      },
    });
    expect(d.status).toBe(201);
    const scale = await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/shop/scale');
    expect(scale.status).toBe(200);
    expect(scale.json<{ status: { selector?: string } }>().status.selector).toBe(KUBE_TEXT);
  });
});
