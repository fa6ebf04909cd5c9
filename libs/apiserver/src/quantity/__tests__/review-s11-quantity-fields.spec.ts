/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call } from '../../__tests__/http-helper.js';

/**
 * Review (session 11) of which quantity fields of built-in kinds kube-apiserver rewrites: every
 * field typed `resource.Quantity` in k8s.io/api (decoded by Quantity.UnmarshalJSON, written back by
 * MarshalJSON), not only resource requirements. The parsing itself lives in ../quantity.ts; the walk
 * over an object's quantity fields is internal/resources/quantity-defaults.ts, extended for them.
 */
const NS = '/api/v1/namespaces/default';

describe('review s11: quantity fields of built-in kinds', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[FINDING S11-SEL10] emptyDir.sizeLimit "1024Mi" and resourceFieldRef.divisor "1024Ki" are stored as written; kube stores "1Gi" and "1Mi" (both are resource.Quantity fields)', async () => {
    // core/v1 EmptyDirVolumeSource.SizeLimit *resource.Quantity, ResourceFieldSelector.Divisor
    // resource.Quantity (env valueFrom, downwardAPI volume items, projected downwardAPI items)
    const ref = { containerName: 'c', resource: 'limits.memory', divisor: '1024Ki' };
    const r = await call(server, 'POST', `${NS}/pods`, {
      metadata: { name: 'sizes' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox:1',
            env: [{ name: 'MEM', valueFrom: { resourceFieldRef: ref } }],
          },
        ],
        volumes: [
          { name: 'scratch', emptyDir: { sizeLimit: '1024Mi' } },
          { name: 'info', downwardAPI: { items: [{ path: 'mem', resourceFieldRef: ref }] } },
          {
            name: 'proj',
            projected: { sources: [{ downwardAPI: { items: [{ path: 'mem', resourceFieldRef: ref }] } }] },
          },
        ],
      },
    });
    expect(r.status).toBe(201);
    const spec = r.json<any>().spec;
    expect(spec.volumes[0].emptyDir.sizeLimit).toBe('1Gi');
    expect(spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor).toBe('1Mi');
    expect(spec.volumes[1].downwardAPI.items[0].resourceFieldRef.divisor).toBe('1Mi');
    expect(spec.volumes[2].projected.sources[0].downwardAPI.items[0].resourceFieldRef.divisor).toBe('1Mi');
  });

  it('[FINDING S11-SEL11] a resource value that is neither a string nor a number (true, {}) is stored and echoed; kube answers 400 "Pod in version \\"v1\\" cannot be handled as a Pod: quantities must match the regular expression ..."', async () => {
    // Quantity.UnmarshalJSON hands the raw JSON (`true`, `{"a":1}`) to ParseQuantity, which
    // answers ErrFormatWrong
    for (const value of [true, { a: 1 }]) {
      const r = await call(server, 'POST', `${NS}/pods`, {
        metadata: { generateName: 'bad-' },
        spec: { containers: [{ name: 'c', image: 'busybox:1', resources: { limits: { memory: value } } }] },
      });
      expect([value, r.status, r.json<any>().message]).toEqual([
        value,
        400,
        `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      ]);
    }
  });
});
