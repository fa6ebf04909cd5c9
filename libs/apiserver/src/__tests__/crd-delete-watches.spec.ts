/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gauges.cdw.example.com' },
  spec: {
    group: 'cdw.example.com',
    scope: 'Namespaced',
    names: { plural: 'gauges', singular: 'gauge', kind: 'Gauge', listKind: 'GaugeList' },
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
const GAUGES = '/apis/cdw.example.com/v1/namespaces/default/gauges';

describe('a deleted CRD', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('ends the watches of its resources (as kube-apiserver tears its storage down): their clients re-watch and learn it is gone', async () => {
    expect((await call(server, 'POST', CRDS, crd)).status).toBe(201);
    await waitFor(async () => (await call(server, 'GET', GAUGES)).status === 200);
    expect((await call(server, 'POST', GAUGES, { metadata: { name: 'g1' } })).status).toBe(201);
    const list = (await call(server, 'GET', GAUGES)).json<any>();
    const w = rawWatch(
      server,
      `${GAUGES}?watch=true&resourceVersion=${list.metadata.resourceVersion as string}`,
    );
    let ended = false;
    void w.ended.then(() => (ended = true));
    try {
      expect((await call(server, 'DELETE', `${CRDS}/${crd.metadata.name}`)).status).toBe(200);
      // the custom resources go first (DELETED events), then the watch ends
      await waitFor(() => ended, 10_000);
      expect(w.events.map((e) => `${e.type} ${(e.object as any).metadata?.name as string}`)).toEqual([
        'DELETED g1',
      ]);
      expect((await call(server, 'GET', GAUGES)).status).toBe(404);
    } finally {
      w.close();
    }
  });
});
