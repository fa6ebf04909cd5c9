import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource } from '../../api/resource-type.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { json, ScriptedServer, status, waitFor } from '../../client/__tests__/scripted-server.js';
import { fencedClient } from '../internal/fenced-client.js';

type Widget = CustomResource<{ size: number }>;
const Widget = defineResource<Widget>({ group: 'example.tosdk.io', version: 'v1', kind: 'Widget' });
const id = new ResourceID('w1', 'ns1');

describe('the fenced client of a reconciliation', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('does not send the client retry of a write once the fence closed (a stale write after leadership loss)', async () => {
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(), {
      retry: { initialDelayMs: 200, maxDelayMs: 200 },
    });
    let open = true;
    const fenced = fencedClient(
      client,
      () => open,
      (write) => new Error(`refused ${write}`),
    );
    server.requests.length = 0;
    server.handle((_req, res) => json(res, 500, status(500, 'InternalError')));
    try {
      const write = fenced.mergePatch(Widget, id, { status: { size: 2 } }).catch((e: unknown) => e);
      await waitFor(() => server.requests.length >= 1, 30_000);
      open = false;
      const error = (await write) as Error;
      expect(error.message).toContain('refused');
      expect(server.requests).toHaveLength(1);
    } finally {
      client.close();
    }
  });

  it('still retries a write while the fence is open, and reads after it closed', async () => {
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(), {
      retry: { initialDelayMs: 1, maxDelayMs: 5 },
    });
    let open = true;
    const fenced = fencedClient(
      client,
      () => open,
      (write) => new Error(`refused ${write}`),
    );
    let n = 0;
    server.requests.length = 0;
    server.handle((_req, res) => {
      if (n++ === 0) json(res, 500, status(500, 'InternalError'));
      else
        json(res, 200, {
          metadata: { name: 'w1', namespace: 'ns1', resourceVersion: '2' },
          spec: { size: 2 },
        });
    });
    try {
      await fenced.mergePatch(Widget, id, { spec: { size: 2 } });
      expect(server.requests).toHaveLength(2);
      open = false;
      await expect(fenced.get(Widget, id)).resolves.toBeDefined();
      await expect(fenced.mergePatch(Widget, id, { spec: { size: 3 } })).rejects.toThrow('refused');
      expect(server.requests).toHaveLength(3);
    } finally {
      client.close();
    }
  });
});
