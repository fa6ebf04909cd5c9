import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../kubernetes-client.js';

/**
 * Adversarial review (session 4) of the own-write echo work (issue 15 §2): the client now keeps the
 * body text of write answers so that a later watch event can be matched to them. A caller that
 * writes and drops what it got back (a script, a job, an operator writing large Secrets or
 * ConfigMaps) must not find the client holding those answers: the objects are the caller's, and
 * 1 MiB objects held 128 at a time are hundreds of MiB.
 */
type ConfigMap = KubernetesResource & { data?: Record<string, string> };

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage until nothing more goes (weak references are cleared across a few cycles). */
async function collect(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('review s4: a write answer the caller dropped is not kept by the client', () => {
  jest.setTimeout(120_000);
  let server: KubeApiServer;
  let client: KubernetesClient;
  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
    client = KubernetesClient.fromKubeConfig(server.kubeConfig());
    await client.create(ResourceTypes.Namespace, { metadata: { name: 'retention' } });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  /** Creates `big-<i>` and returns only a weak reference to the answer (no frame of the caller holds it). */
  async function createAndDrop(i: number, value: string): Promise<WeakRef<object>> {
    const written = await client.create<ConfigMap>(ResourceTypes.ConfigMap, {
      metadata: { name: `big-${i}`, namespace: 'retention' },
      data: { v: value },
    });
    return new WeakRef(written);
  }

  // F1 (caused by 8f26ac4, fixed by 05a4603): the client kept every non-GET answer (parsed object as a
  // strong Map key, and its text) until 128 newer answers pushed it out, also answers no one would
  // ever pass to expectEcho.
  // (Only the answers' reachability is asserted: the in-process API server keeps its own history of
  // these objects, so the heap is not the client's alone.)
  it('after 40 writes of 256 KiB ConfigMaps whose answers the caller dropped, none of those answers is still reachable', async () => {
    const N = 40;
    const value = 'x'.repeat(256 * 1024);
    const answers: WeakRef<object>[] = [];
    for (let i = 0; i < N; i++) answers.push(await createAndDrop(i, value));
    // (deleted again, answers dropped too)
    for (let i = 0; i < N; i++)
      await client.delete(ResourceTypes.ConfigMap, new ResourceID(`big-${i}`, 'retention'));
    // a last small write, so that nothing of the big ones is the client's latest anything
    await client.create(ResourceTypes.ConfigMap, { metadata: { name: 'small', namespace: 'retention' } });
    await collect();
    expect(answers.filter((r) => r.deref() !== undefined).length).toBe(0);
  });
});
