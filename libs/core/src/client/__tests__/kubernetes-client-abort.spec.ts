import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource } from '../../api/resource-type.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesTransportError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import { ScriptedServer, waitFor } from './scripted-server.js';

type Widget = CustomResource<{ size: number }>;
const Widget = defineResource<Widget>({ group: 'example.tosdk.io', version: 'v1', kind: 'Widget' });
const id = new ResourceID('w1', 'ns1');
const body = { metadata: { name: 'w1', namespace: 'ns1' }, spec: { size: 1 } } satisfies Widget;

/** Every typed call of the client that takes a signal, sent with `signal`. */
const calls: Array<[string, (c: KubernetesClient, signal: AbortSignal) => Promise<unknown>]> = [
  ['get', (c, signal) => c.get(Widget, id, { signal })],
  ['create', (c, signal) => c.create(Widget, body, { signal })],
  ['update', (c, signal) => c.update(Widget, body, { signal })],
  ['updateStatus', (c, signal) => c.updateStatus(Widget, body, { signal })],
  ['apply', (c, signal) => c.apply(Widget, body, { fieldManager: 'test', signal })],
  ['mergePatch', (c, signal) => c.mergePatch(Widget, id, { spec: { size: 2 } }, { signal })],
  ['jsonPatch', (c, signal) => c.jsonPatch(Widget, id, [{ op: 'remove', path: '/spec' }], { signal })],
  ['delete', (c, signal) => c.delete(Widget, id, { signal })],
];

describe('KubernetesClient: aborting a request through its signal', () => {
  let server: ScriptedServer;
  let client: KubernetesClient;

  beforeAll(async () => {
    server = await ScriptedServer.start();
    // a server that accepts every request and never answers (overloaded, half partitioned)
    server.handle(() => undefined);
    client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  it.each(calls)(
    '%s rejects with an aborted transport error and closes its connection',
    async (verb, call) => {
      const controller = new AbortController();
      const pending = call(client, controller.signal).catch((e: unknown) => e);
      await waitFor(() => server.requests.length === 1 && server.openResponses === 1, 5_000);
      controller.abort();
      const error = await pending;
      expect(error).toBeInstanceOf(KubernetesTransportError);
      expect((error as KubernetesTransportError).failure).toBe('aborted');
      // the server sees the request's connection go: nothing is left hanging until a timeout
      await waitFor(() => server.openResponses === 0, 5_000);
      // an abort is never retried
      expect(server.requests).toHaveLength(1);
      expect(verb).toBeTruthy();
    },
  );

  it('does not send a request whose signal is already aborted', async () => {
    const error = await client.update(Widget, body, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });
});
