import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, waitFor } from '../../__tests__/http-helper.js';

/**
 * Review (session 11) of the CEL `quantity()` function's error, against kube-apiserver 1.32:
 * k8s.io/apiserver pkg/cel/library/quantity.go (stringToQuantity returns
 * `types.WrapErr(resource.ParseQuantity's error)`, whose text is that error's) and
 * apiextensions-apiserver pkg/apiserver/schema/cel/validation.go (a runtime error becomes
 * `<error> evaluating rule: <rule>`). The parse errors come from ../quantity.ts; the wrapping is in
 * crd/internal/cel/lib-quantity.ts, which now passes the error on as is.
 */
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const THINGS = '/apis/celq.example.com/v1/namespaces/default/things';

describe('review s11: quantity() in CEL rules', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    const crd = await call(server, 'POST', CRDS, {
      metadata: { name: 'things.celq.example.com' },
      spec: {
        group: 'celq.example.com',
        scope: 'Namespaced',
        names: { kind: 'Thing', plural: 'things', singular: 'thing', listKind: 'ThingList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { memory: { type: 'string', maxLength: 20 } },
                    'x-kubernetes-validations': [{ rule: 'quantity(self.memory).isInteger()' }],
                  },
                },
              },
            },
          },
        ],
      },
    });
    expect(crd.status).toBe(201);
    await waitFor(async () => (await call(server, 'GET', THINGS)).status === 200);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[FINDING S11-SEL13] quantity() of a bad string fails the rule with "quantities must match the regular expression: <parse error>"; kube reports the parse error alone ("unable to parse quantity\'s suffix evaluating rule: ...")', async () => {
    const r = await call(server, 'POST', THINGS, {
      apiVersion: 'celq.example.com/v1',
      kind: 'Thing',
      metadata: { name: 't1' },
      spec: { memory: '500mi' },
    });
    expect(r.status).toBe(422);
    const causes = r.json<{ details: { causes: { field: string; message: string }[] } }>().details.causes;
    expect(causes).toContainEqual(
      expect.objectContaining({
        field: 'spec',
        message:
          'Invalid value: "object": unable to parse quantity\'s suffix evaluating rule: quantity(self.memory).isInteger()',
      }),
    );
  });
});
