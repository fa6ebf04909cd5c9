// Shared informers (issue 15 §5): three users of the same ConfigMaps (as three controllers, or three
// InformerEventSources of one operator) with informers of their own, against the same three users
// sharing through one SharedInformers. Printed as ratios against the unshared run measured in the
// same process against the same server: list and watch requests, heap held by the caches, and the
// time until all three are synced. Each user adds an index of its own (per-user cost stays).
import v8 from 'node:v8';
import vm from 'node:vm';
import { KubeApiServer } from '@tosdk/apiserver';
import { KubernetesClient, MultiNamespaceInformer, ResourceTypes, SharedInformers } from '@tosdk/core';
import type { V1ConfigMap } from '@kubernetes/client-node';

const COUNT = 5_000;
const USERS = 3;
const NAMESPACE = 'bench-shared';

function gcFunction(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

async function settledHeap(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

interface Figures {
  lists: number;
  watches: number;
  heap: number;
  ms: number;
}

async function measure(
  server: KubeApiServer,
  client: KubernetesClient,
  gc: () => void,
  shared: SharedInformers | undefined,
): Promise<Figures> {
  const requests = (verb: string) =>
    server.requests.count({ verb, resource: 'configmaps', namespace: NAMESPACE });
  const lists0 = requests('list');
  const watches0 = requests('watch');
  const before = await settledHeap(gc);
  const users = Array.from(
    { length: USERS },
    () =>
      new MultiNamespaceInformer<V1ConfigMap>({
        client,
        type: ResourceTypes.ConfigMap,
        namespaces: [NAMESPACE],
        shared,
      }),
  );
  users.forEach((u, i) => u.addIndexer(`by-shard-${i}`, (o) => [o.metadata?.labels?.shard ?? '']));
  const t0 = performance.now();
  await Promise.all(users.map((u) => u.start()));
  const ms = performance.now() - t0;
  // the server logs a watch once its stream is open: wait (bounded) until every watch is counted
  const expectedWatches = shared ? 1 : USERS;
  for (let i = 0; i < 500 && requests('watch') - watches0 < expectedWatches; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const heap = (await settledHeap(gc)) - before;
  for (const u of users) {
    if (u.keys().length !== COUNT) throw new Error(`a user cached ${u.keys().length} of ${COUNT}`);
  }
  const figures = {
    // list requests: an informer's first list asks for resourceVersion=0 (client-go's reflector does),
    // which the server answers from its watch cache in one response whatever the page size
    lists: requests('list') - lists0,
    watches: requests('watch') - watches0,
    heap,
    ms,
  };
  await Promise.all(users.map((u) => u.stop()));
  return figures;
}

/** Entry point of `npm run bench -- shared-informers`. */
export async function run(): Promise<void> {
  const gc = gcFunction();
  const server = await KubeApiServer.start({ port: 0 });
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  try {
    await client.create(ResourceTypes.Namespace, { metadata: { name: NAMESPACE } });
    const data = { config: 'x'.repeat(500), mode: 'production' };
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < COUNT) {
          const i = next++;
          await client.create(ResourceTypes.ConfigMap, {
            metadata: { name: `cm-${i}`, namespace: NAMESPACE, labels: { shard: String(i % 16) } },
            data,
          });
        }
      }),
    );
    await measure(server, client, gc, undefined); // warm-up
    const own = await measure(server, client, gc, undefined);
    const shared = await measure(server, client, gc, new SharedInformers());
    const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
    console.log(`${USERS} users of ${COUNT} ConfigMaps in one namespace, each with an index of its own:`);
    console.log(
      `  list requests (a first list at resourceVersion=0 is one answer): shared ${shared.lists}, own informers ${own.lists} (${ratio(shared.lists, own.lists)}x); watch requests: shared ${shared.watches}, own ${own.watches} (${ratio(shared.watches, own.watches)}x); target: 1 list and 1 watch shared: ${shared.lists === 1 && shared.watches === 1 ? 'met' : 'not met'}`,
    );
    console.log(
      `  heap of the caches: shared ${(shared.heap / 1e6).toFixed(1)} MB, own informers ${(own.heap / 1e6).toFixed(1)} MB (${ratio(shared.heap, own.heap)}x)`,
    );
    console.log(
      `  start → all synced: shared ${shared.ms.toFixed(0)} ms, own informers ${own.ms.toFixed(0)} ms (${ratio(shared.ms, own.ms)}x)`,
    );
  } finally {
    client.close();
    await server.stop();
  }
}
