import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import type { KubernetesResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { WatchEvent } from '../types.js';
import { waitFor } from './scripted-server.js';

type ConfigMap = KubernetesResource & { data?: Record<string, string> };

/** The events of `namespace` from `resourceVersion` on, until `count` arrived. */
async function watchFrom(
  client: KubernetesClient,
  namespace: string,
  resourceVersion: string,
  count: number,
  sharedEchoes: boolean | object = true,
): Promise<WatchEvent<ConfigMap>[]> {
  const controller = new AbortController();
  const events: WatchEvent<ConfigMap>[] = [];
  const done = (async () => {
    for await (const event of client.watch(ResourceTypes.ConfigMap, {
      namespace,
      resourceVersion,
      sharedEchoes,
      signal: controller.signal,
    })) {
      events.push(event);
    }
  })();
  await waitFor(() => events.length >= count, 10_000, `${count} watch events`);
  controller.abort();
  await done;
  return events;
}

// Issue 15 §2: the watch event of an own write whose answer came first is that answer's text byte
// for byte, so the client can deliver the caller's kept copy instead of parsing it again.
describe('KubernetesClient.expectEcho against @tosdk/apiserver', () => {
  let server: KubeApiServer;
  let client: KubernetesClient;
  let other: KubernetesClient;

  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
    client = KubernetesClient.fromKubeConfig(server.kubeConfig());
    other = KubernetesClient.fromKubeConfig(server.kubeConfig());
    for (const name of ['echo-one', 'echo-two'])
      await client.create(ResourceTypes.Namespace, { metadata: { name } });
  });
  afterAll(async () => {
    client.close();
    other.close();
    await server.stop();
  });

  it('delivers the kept copy for the events of own writes (merge patch, apply, create) and parses every other event', async () => {
    const ns = 'echo-one';
    const before = await client.list(ResourceTypes.ConfigMap, { namespace: ns });
    const created = await client.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'cm', namespace: ns },
      data: { a: '1' },
    });
    const createdCopy = structuredClone(created);
    expect(client.expectEcho(created, createdCopy)).toBe(true);
    const id = new ResourceID('cm', ns);
    const patched = await client.mergePatch<ConfigMap>(ResourceTypes.ConfigMap, id, { data: { b: '2' } });
    const patchedCopy = structuredClone(patched);
    expect(client.expectEcho(patched, patchedCopy)).toBe(true);
    // someone else's change: never an echo of ours
    await other.mergePatch(ResourceTypes.ConfigMap, id, { data: { c: '3' } });
    const applied = await client.apply<ConfigMap>(
      ResourceTypes.ConfigMap,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns }, data: { d: '4' } },
      { fieldManager: 'echo-test' },
    );
    expect(client.expectEcho(applied)).toBe(true);
    // a text is taken once; an object no write of this client returned has none
    expect(client.expectEcho(patched, patchedCopy)).toBe(false);
    expect(client.expectEcho((await client.get(ResourceTypes.ConfigMap, id))!)).toBe(false);

    // a watch not opened for shared echoes (the public default) gets objects of its own
    const plain = await watchFrom(client, ns, before.resourceVersion, 4, false);
    for (const event of plain) {
      const object = event.type === 'ERROR' ? undefined : event.object;
      expect([createdCopy, patchedCopy, applied]).not.toContain(object);
    }
    const events = await watchFrom(client, ns, before.resourceVersion, 4);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'MODIFIED']);
    const objects = events.map((e) => (e.type === 'ERROR' ? undefined : e.object));
    expect(objects[0]).toBe(createdCopy);
    expect(objects[1]).toBe(patchedCopy);
    expect(objects[2]).not.toBe(patchedCopy);
    expect(objects[2]?.data).toEqual({ a: '1', b: '2', c: '3' });
    expect(objects[3]).toBe(applied);
    // the delivered copies are what a parse of the event gives
    const parsed = await watchFrom(other, ns, before.resourceVersion, 4);
    expect(objects).toEqual(parsed.map((e) => (e.type === 'ERROR' ? undefined : e.object)));
  });

  it("keeps an answer's text only until the event loop turn ends (an answer the caller drops is not held)", async () => {
    const ns = 'echo-two';
    const first = await client.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'turn-1', namespace: ns },
      data: { v: 'x'.repeat(64 * 1024) },
    });
    // right after the answer (the informers' and event sources' case): known
    expect(client.expectEcho(first, structuredClone(first))).toBe(true);
    const second = await client.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'turn-2', namespace: ns },
      data: { v: 'x'.repeat(64 * 1024) },
    });
    await new Promise((resolve) => setImmediate(resolve));
    // a turn later: the client holds nothing of it any more
    expect(client.expectEcho(second)).toBe(false);
  });

  it("delivers an echo registered for a consumer to that consumer's watch only (another informer on the client parses)", async () => {
    const ns = 'echo-two';
    const start = await client.list(ResourceTypes.ConfigMap, { namespace: ns });
    const mine = {};
    const written = await client.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'consumer', namespace: ns },
      data: { a: '1' },
    });
    const copy = structuredClone(written);
    expect(client.expectEcho(written, copy, mine)).toBe(true);
    // another consumer's watch (a user's informer on the same client) and an unmarked one: parsed
    const others = await watchFrom(client, ns, start.resourceVersion, 1, {});
    const unmarked = await watchFrom(client, ns, start.resourceVersion, 1, true);
    for (const events of [others, unmarked]) {
      expect(events[0].type === 'ADDED' && events[0].object).not.toBe(copy);
      expect(events[0].type === 'ADDED' && events[0].object).toEqual(copy);
    }
    // the registering consumer's watch gets the copy
    const own = await watchFrom(client, ns, start.resourceVersion, 1, mine);
    expect(own[0].type === 'ADDED' && own[0].object).toBe(copy);
  });

  it('parses the event when the kept answer is not what the watch sends (another client, an expectation taken)', async () => {
    const ns = 'echo-two';
    const before = await client.list(ResourceTypes.ConfigMap, { namespace: ns });
    const created = await other.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'cm', namespace: ns },
      data: { a: '1' },
    });
    // the answer of another client's write is unknown to this one
    expect(client.expectEcho(created, { metadata: { name: 'not-it' } })).toBe(false);
    const events = await watchFrom(client, ns, before.resourceVersion, 1);
    expect(events[0].type === 'ADDED' && events[0].object).toEqual(created);
    expect(events[0].type === 'ADDED' && events[0].object.metadata?.name).toBe('cm');
  });

  it('parses an event of the same version whose text differs (a metadata-only watch)', async () => {
    const ns = 'echo-two';
    const id = new ResourceID('cm', ns);
    const start = (await client.get(ResourceTypes.ConfigMap, id))!.metadata!.resourceVersion!;
    const patched = await client.mergePatch<ConfigMap>(ResourceTypes.ConfigMap, id, { data: { z: '9' } });
    const copy = structuredClone(patched);
    expect(client.expectEcho(patched, copy)).toBe(true);
    const controller = new AbortController();
    const events: WatchEvent<ConfigMap>[] = [];
    const done = (async () => {
      for await (const event of client.watch(ResourceTypes.ConfigMap, {
        namespace: ns,
        resourceVersion: start,
        metadataOnly: true,
        sharedEchoes: true,
        signal: controller.signal,
      })) {
        events.push(event);
      }
    })();
    await waitFor(() => events.length >= 1, 10_000, 'the metadata-only event');
    controller.abort();
    await done;
    const object = events[0].type === 'MODIFIED' ? events[0].object : undefined;
    expect(object?.metadata?.resourceVersion).toBe(patched.metadata?.resourceVersion);
    expect(object).not.toBe(copy);
    expect(object?.data).toBeUndefined();
    // the full watch still gets the copy
    const full = await watchFrom(client, ns, start, 1);
    expect(full[0].type === 'MODIFIED' && full[0].object).toBe(copy);
  });
});
