// Informer benchmark: time from start() to synced for 10,000 ConfigMaps, and heap bytes per cached
// object against its JSON size, and of a metadata-only informer on the same objects; then the footprint of an idle operator (issue 15 §3) in child
// processes: in-cluster configuration by loadKubeConfig against client-node's KubeConfig and bare Node. Each figure is printed next to a baseline measured in the same run
// against the same server: a bare list (node:https + JSON.parse, nothing kept) making the requests the
// informer makes (resourceVersion=0 first, which the server answers whole, as kube's watch cache) for the
// time, and the parsed JSON of the same objects held in an array for the memory.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  Informer,
  InformerEventSource,
  KubernetesClient,
  managedFieldsTransform,
  Operator,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';

const COUNT = 10_000;
const OWNED = 5_000;
const PAGE = 500;
const NAMESPACE = 'bench';
/** Secrets each owned by a ConfigMap of the same name (the event source's primary index holds them). */
const OWNED_NAMESPACE = 'bench-owned';
/** No objects: the heap of an operator itself. */
const EMPTY_NAMESPACE = 'bench-empty';

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

/**
 * Lists every page with bare node:https and JSON.parse; with `index`, keeps the objects by key (the
 * floor for any cache); with `keep`, keeps them in an array and returns their JSON bytes.
 */
async function bareList(
  server: KubeApiServer,
  agent: https.Agent,
  token: string,
  keep?: unknown[],
  index?: Map<string, unknown>,
): Promise<number> {
  let token_: string | undefined;
  let bytes = 0;
  do {
    // the informer's requests: resourceVersion=0 first (answered whole), a continue page if any
    const path = `/api/v1/namespaces/${NAMESPACE}/configmaps?limit=${PAGE}${token_ ? `&continue=${encodeURIComponent(token_)}` : '&resourceVersion=0'}`;
    const body = await new Promise<string>((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: server.port,
          path,
          agent,
          headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
    const list = JSON.parse(body) as { items: unknown[]; metadata: { continue?: string } };
    for (const item of list.items as Array<{ metadata: { namespace: string; name: string } }>) {
      index?.set(`${item.metadata.namespace}/${item.metadata.name}`, item);
      if (keep) {
        bytes += Buffer.byteLength(JSON.stringify(item));
        keep.push(item);
      }
    }
    token_ = list.metadata.continue || undefined;
  } while (token_);
  return bytes;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Entry point of `npm run bench -- core-informer`. */
export async function run(): Promise<void> {
  const gc = gcFunction();
  const server = await KubeApiServer.start({ port: 0 });
  const kc = server.kubeConfig();
  const client = KubernetesClient.fromKubeConfig(kc);
  try {
    await client.create(ResourceTypes.Namespace, { metadata: { name: NAMESPACE } });
    const data = { config: 'x'.repeat(200), mode: 'production', replicas: '3' };
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < COUNT) {
          const i = next++;
          await client.create(ResourceTypes.ConfigMap, {
            metadata: {
              name: `cm-${i}`,
              namespace: NAMESPACE,
              labels: { app: 'bench', shard: String(i % 16) },
            },
            data,
          });
        }
      }),
    );
    for (const name of [OWNED_NAMESPACE, EMPTY_NAMESPACE]) {
      await client.create(ResourceTypes.Namespace, { metadata: { name } });
    }
    let nextOwned = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (nextOwned < OWNED) {
          const name = `p-${nextOwned++}`;
          const owner = await client.create(ResourceTypes.ConfigMap, {
            metadata: { name, namespace: OWNED_NAMESPACE },
            data: { mode: 'production' },
          });
          await client.create(ResourceTypes.Secret, {
            metadata: {
              name,
              namespace: OWNED_NAMESPACE,
              labels: { app: 'bench' },
              ownerReferences: [
                { apiVersion: 'v1', kind: 'ConfigMap', name, uid: owner.metadata!.uid!, controller: true },
              ],
            },
            data: { token: Buffer.from('x'.repeat(48)).toString('base64') },
          });
        }
      }),
    );
    // one keep-alive pool for the baseline too, as the client has
    const agent = new https.Agent({ keepAlive: true, ca: server.caPem });
    const token = server.tokenOf();

    // (1) time to synced
    await bareList(server, agent, token); // warm-up
    // Rounds alternate between the baseline and the informer so load changes hit both alike.
    const bareTimes: number[] = [];
    const informerTimes: number[] = [];
    for (let round = 0; round < 5; round++) {
      let t0 = performance.now();
      const cache = new Map<string, unknown>();
      await bareList(server, agent, token, undefined, cache);
      bareTimes.push(performance.now() - t0);
      if (cache.size !== COUNT) throw new Error(`baseline kept ${cache.size} of ${COUNT}`);
      const informer = new Informer<V1ConfigMap>({
        client,
        type: ResourceTypes.ConfigMap,
        namespace: NAMESPACE,
      });
      t0 = performance.now();
      await informer.start();
      informerTimes.push(performance.now() - t0);
      if (informer.list().length !== COUNT)
        throw new Error(`informer cached ${informer.list().length} of ${COUNT}`);
      await informer.stop();
    }
    const bareMs = median(bareTimes);
    const informerMs = median(informerTimes);
    console.log(`informer start() → synced, ${COUNT} ConfigMaps: ${informerMs.toFixed(0)} ms (median of 5)`);
    console.log(
      `  baseline bare list into a Map (https + JSON.parse, the informer's requests: resourceVersion=0): ${bareMs.toFixed(0)} ms`,
    );
    console.log(`  ratio: ${(informerMs / bareMs).toFixed(2)}x`);

    // (2) heap bytes per cached object against its JSON size
    const before = await settledHeap(gc);
    const informer = new Informer<V1ConfigMap>({
      client,
      type: ResourceTypes.ConfigMap,
      namespace: NAMESPACE,
    });
    await informer.start();
    await informer.stop(); // the cache stays; no stream keeps buffers alive
    const after = await settledHeap(gc);
    const jsonBytes = informer.list().reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);
    const informerHeap = after - before;

    const baseBefore = await settledHeap(gc);
    const kept: unknown[] = [];
    await bareList(server, agent, token, kept);
    const baseAfter = await settledHeap(gc);
    const baselineHeap = baseAfter - baseBefore;
    const perObject = (n: number) => (n / COUNT).toFixed(0);
    console.log(
      `informer heap per cached object: ${perObject(informerHeap)} B for ${perObject(jsonBytes)} B of JSON: ${(informerHeap / jsonBytes).toFixed(2)}x (target < 2x)`,
    );
    console.log(
      `  baseline JSON.parse'd objects in an array: ${perObject(baselineHeap)} B: ${(baselineHeap / jsonBytes).toFixed(2)}x; informer / baseline ${(informerHeap / baselineHeap).toFixed(2)}x`,
    );
    if (kept.length !== COUNT || informer.keys().length !== COUNT) throw new Error('lost objects');
    agent.destroy();

    // (2b) the same with managedFields pruned as InformerEventSource does by default (it keeps only
    // the operator's own entries; the operator here is `bench-operator`, the objects were written by
    // the bench's client, another manager): heap per cached object against the JSON of the objects
    // as served (issue 15 §3 target: <= 1.0x) and as cached
    const prunedBefore = await settledHeap(gc);
    const pruned = new Informer<V1ConfigMap>({
      client,
      type: ResourceTypes.ConfigMap,
      namespace: NAMESPACE,
      transform: managedFieldsTransform<V1ConfigMap>('keepOwn', ['bench-operator']),
    });
    await pruned.start();
    await pruned.stop();
    const prunedHeap = (await settledHeap(gc)) - prunedBefore;
    const prunedJson = pruned.list().reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);
    if (pruned.keys().length !== COUNT) throw new Error('pruned informer lost objects');
    console.log(
      `informer heap per cached object, managedFields pruned: ${perObject(prunedHeap)} B: ${(prunedHeap / jsonBytes).toFixed(2)}x the served JSON (${perObject(jsonBytes)} B; target <= 1.0x: ${prunedHeap <= jsonBytes ? 'met' : 'not met'}), ${(prunedHeap / prunedJson).toFixed(2)}x the cached JSON (${perObject(prunedJson)} B), ${(prunedHeap / baselineHeap).toFixed(2)}x the JSON.parse'd objects`,
    );

    // (2c) the same objects cached as an operator caches secondaries: an InformerEventSource (default
    // keepOwn pruning, through the operator's shared informers) of a controller with no primaries;
    // a first operator runs the same code before the measured one. The heap an operator takes with
    // no object at all (its code compiled and tiered up during the run, its hidden classes, its
    // watches; ~0.45 MB) is measured the same way and shown apart: it is not per object.
    const operatorCache = async <R extends KubernetesResource>(
      type: typeof ResourceTypes.ConfigMap | typeof ResourceTypes.Secret,
      namespace: string,
      count: number,
    ): Promise<{ operator: Operator; cached: number }> => {
      const operator = new Operator({ kubeConfig: kc });
      let source: InformerEventSource<R, V1ConfigMap> | undefined;
      operator.register<V1ConfigMap>(
        {
          reconcile: () => UpdateControl.noUpdate<V1ConfigMap>(),
          prepareEventSources: (context) => {
            source = new InformerEventSource<R, V1ConfigMap>(
              { type: type as never, namespaces: [namespace] },
              context,
            );
            return { secondaries: source };
          },
        },
        {
          resourceType: ResourceTypes.ConfigMap,
          name: 'bench-operator',
          namespaces: [namespace],
          labelSelector: 'bench-primary=none',
        },
      );
      await operator.start();
      const deadline = Date.now() + 60_000;
      while ((source?.list().length ?? 0) < count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { operator, cached: source?.list().length ?? 0 };
    };
    // a stopped operator lets go of its cache as its watches close and its timers end: wait for it
    const settledAfterTimers = async (): Promise<number> => {
      for (let i = 0; i < 5; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return settledHeap(gc);
    };
    /** Heap of the second of two operators caching the `count` objects of `namespace`. */
    const operatorHeap = async (
      type: typeof ResourceTypes.ConfigMap | typeof ResourceTypes.Secret,
      namespace: string,
      count: number,
    ): Promise<number> => {
      await (await operatorCache(type, namespace, count)).operator.stop();
      const before = await settledAfterTimers();
      const measured = await operatorCache(type, namespace, count);
      const heap = (await settledAfterTimers()) - before;
      await measured.operator.stop();
      if (measured.cached !== count)
        throw new Error(`the operator cached ${measured.cached} of ${count} in ${namespace}`);
      return heap;
    };
    const operatorItself = await operatorHeap(ResourceTypes.ConfigMap, EMPTY_NAMESPACE, 0);
    const viaOperator = await operatorHeap(ResourceTypes.ConfigMap, NAMESPACE, COUNT);
    console.log(
      `operator (InformerEventSource) heap per cached object: ${perObject(viaOperator)} B: ${(viaOperator / jsonBytes).toFixed(2)}x the served JSON (target <= 1.0x: ${viaOperator <= jsonBytes ? 'met' : 'not met'}), ${(viaOperator / prunedHeap).toFixed(2)}x the pruned Informer`,
    );
    console.log(
      `  of which the operator itself (the same operator caching nothing): ${(operatorItself / 1e3).toFixed(0)} KB = ${perObject(operatorItself)} B per object; net ${perObject(viaOperator - operatorItself)} B per object: ${((viaOperator - operatorItself) / jsonBytes).toFixed(2)}x the served JSON, ${((viaOperator - operatorItself) / prunedHeap).toFixed(2)}x the pruned Informer`,
    );

    // (2d) secondaries owned by primaries (the event source's primary index holds each): Secrets each
    // owned by a ConfigMap of the same name, through the operator's event source (mapped by owner
    // references) against a plain pruned Informer on the same Secrets
    const ownedBefore = await settledAfterTimers();
    const ownedInformer = new Informer<V1Secret>({
      client,
      type: ResourceTypes.Secret,
      namespace: OWNED_NAMESPACE,
      transform: managedFieldsTransform<V1Secret>('keepOwn', ['bench-operator']),
    });
    await ownedInformer.start();
    await ownedInformer.stop();
    const ownedInformerHeap = (await settledAfterTimers()) - ownedBefore;
    const ownedJson = (await client.list(ResourceTypes.Secret, { namespace: OWNED_NAMESPACE })).items.reduce(
      (n, o) => n + Buffer.byteLength(JSON.stringify(o)),
      0,
    );
    const ownedCount = ownedInformer.keys().length;
    if (ownedCount !== OWNED) throw new Error(`the informer cached ${ownedCount} of ${OWNED} Secrets`);
    const ownedViaOperator = await operatorHeap(ResourceTypes.Secret, OWNED_NAMESPACE, OWNED);
    const ownedPer = (n: number) => (n / OWNED).toFixed(0);
    console.log(
      `owned secondaries (${OWNED} Secrets, each owned by a ConfigMap), operator's InformerEventSource: ${ownedPer(ownedViaOperator)} B per object, net of the operator itself ${ownedPer(ownedViaOperator - operatorItself)} B: ${((ownedViaOperator - operatorItself) / ownedJson).toFixed(2)}x their served JSON (${ownedPer(ownedJson)} B; target <= 1.0x: ${ownedViaOperator - operatorItself <= ownedJson ? 'met' : 'not met'}), ${((ownedViaOperator - operatorItself) / ownedInformerHeap).toFixed(2)}x a plain pruned Informer (${ownedPer(ownedInformerHeap)} B)`,
    );

    // (3) a metadata-only informer on the same objects (PartialObjectMetadata lists and watches)
    const metaBefore = await settledAfterTimers();
    const meta = new Informer<KubernetesResource>({
      client,
      type: ResourceTypes.ConfigMap,
      namespace: NAMESPACE,
      metadataOnly: true,
    });
    await meta.start();
    await meta.stop();
    const metaHeap = (await settledHeap(gc)) - metaBefore;
    if (meta.keys().length !== COUNT) throw new Error('metadata-only informer lost objects');
    console.log(
      `metadata-only informer heap per cached object: ${perObject(metaHeap)} B: ${(metaHeap / informerHeap).toFixed(2)}x the full informer's ${perObject(informerHeap)} B on the same objects`,
    );
    await clientCpu(server, client);
    await footprint(server);
  } finally {
    client.close();
    await server.stop();
  }
}

/**
 * CPU per request of tosdk's client against the floor's request function (a bare node:https
 * keep-alive client, as in the widgets bench's floor-raw), in this process against the same server:
 * merge patches of 16 ConfigMaps, 16 in flight, rounds alternating. The server runs in this process
 * too, so each figure includes its CPU: the difference of two figures is the clients' difference.
 */
async function clientCpu(server: KubeApiServer, client: KubernetesClient): Promise<void> {
  const REQUESTS = 2_000;
  const ROUNDS = 8;
  const INFLIGHT = 16;
  const token = server.tokenOf();
  const agent = new https.Agent({ keepAlive: true, maxSockets: INFLIGHT, ca: server.caPem });
  const raw = (path: string, body: string) =>
    new Promise<string>((resolve, reject) => {
      const headers = {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'content-type': 'application/merge-patch+json',
        'content-length': Buffer.byteLength(body),
      };
      const req = https.request(
        { agent, hostname: '127.0.0.1', port: server.port, method: 'PATCH', path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 0) >= 300) reject(new Error(`PATCH ${path}: ${res.statusCode}`));
            else resolve(text);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const CM = ResourceTypes.ConfigMap;
  const ids = Array.from({ length: INFLIGHT }, (_, i) => `cpu-${i}`);
  for (const name of ids) await client.create(CM, { metadata: { name, namespace: EMPTY_NAMESPACE } });
  let seq = 0;
  const patch = () => ({ data: { v: String(++seq) } });
  const path = (name: string) => `/api/v1/namespaces/${EMPTY_NAMESPACE}/configmaps/${name}`;
  const contenders: Record<string, (name: string) => Promise<unknown>> = {
    floor: (name) => raw(path(name), JSON.stringify(patch())),
    'floor + JSON.parse': (name) =>
      raw(path(name), JSON.stringify(patch())).then((t) => JSON.parse(t) as unknown),
    tosdk: (name) => client.mergePatch(CM, new ResourceID(name, EMPTY_NAMESPACE), patch()),
  };
  const perRequest = async (send: (name: string) => Promise<unknown>) => {
    let next = 0;
    const start = process.cpuUsage();
    await Promise.all(
      ids.map(async (name) => {
        while (next < REQUESTS) {
          next++;
          await send(name);
        }
      }),
    );
    const used = process.cpuUsage(start);
    return (used.user + used.system) / REQUESTS;
  };
  const names = Object.keys(contenders);
  for (const name of names) await perRequest(contenders[name]); // warm-up
  const rounds = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of r % 2 ? [...names].reverse() : names)
      rounds.get(name)!.push(await perRequest(contenders[name]));
  }
  agent.destroy();
  const floor = median(rounds.get('floor')!);
  const parsed = median(rounds.get('floor + JSON.parse')!);
  const ours = median(rounds.get('tosdk')!);
  const paired = median(rounds.get('tosdk')!.map((v, i) => v / rounds.get('floor + JSON.parse')![i]));
  console.log(
    `client CPU per merge patch (client + in-process server, ${INFLIGHT} in flight, median of ${ROUNDS} alternating rounds of ${REQUESTS}): floor ${floor.toFixed(0)} us, floor + JSON.parse of the answer ${parsed.toFixed(0)} us, tosdk's client ${ours.toFixed(0)} us (it parses the answer): ${(ours - parsed).toFixed(0)} us over the floor with the parse (paired ratio ${paired.toFixed(2)}x), ${(ours - floor).toFixed(0)} us over the bare floor`,
  );
}

/**
 * Idle RSS of an operator with one controller on ConfigMaps, each setup in its own process (the
 * child script of the footprint test): bare Node, the floor (bare node:https listing and holding a
 * watch open), the import of @tosdk/core only, in-cluster
 * configuration by loadKubeConfig (as in a pod), a kubeconfig file by loadKubeConfig, and
 * client-node's KubeConfig (the way before). Median of 3 processes each.
 */
async function footprint(server: KubeApiServer): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tosdk-bench-footprint-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const sa = join(dir, 'sa');
  mkdirSync(sa);
  writeFileSync(join(sa, 'token'), server.tokenOf());
  writeFileSync(join(sa, 'ca.crt'), server.caPem ?? '');
  writeFileSync(join(sa, 'namespace'), 'default');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = join(root, 'libs/core/src/client/__tests__/footprint-child.mjs');
  const exec = promisify(execFile);
  const connections = new Map<string, number>();
  const rss = async (mode: string): Promise<number> => {
    const values: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { stdout } = await exec(
        process.execPath,
        // the namespace `default`, almost empty: the operator's own footprint, not its cache's
        ['--expose-gc', child, mode, kubeconfig, 'default', sa, String(server.port)],
        // DETAIL: the child also counts its connections (after taking its RSS)
        {
          cwd: join(root, 'libs/core'),
          encoding: 'utf8',
          env: { ...process.env, TOSDK_FOOTPRINT_DETAIL: '1' },
        },
      );
      const measured = JSON.parse(stdout.trim().split('\n').pop()!) as { rss: number; connections?: number };
      values.push(measured.rss);
      if (measured.connections !== undefined) connections.set(mode, measured.connections);
    }
    return median(values);
  };
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  const base = await rss('baseline');
  const floor = await rss('floor');
  const clientNode = await rss('client-node');
  console.log('idle operator RSS, one controller on the ConfigMaps of `default` (median of 3 processes):');
  console.log(
    `  baseline bare node: ${mb(base)}; floor, bare node:https list + open watch: ${mb(floor)} (${connections.get('floor')} connection); with client-node's KubeConfig (before): ${mb(clientNode)}`,
  );
  for (const [mode, what] of [
    ['core', 'import of @tosdk/core only'],
    ['in-cluster', 'loadKubeConfig in-cluster (a pod)'],
    ['light', 'loadKubeConfig from a kubeconfig file'],
  ] as const) {
    const value = await rss(mode);
    console.log(
      `  ${what}: ${mb(value)}: ${(value / clientNode).toFixed(2)}x the client-node setup, ${(value / floor).toFixed(2)}x the floor (+${mb(value - floor)}), +${mb(value - base)} over bare node`,
    );
    if (mode === 'in-cluster') {
      console.log(`  target idle RSS <= 60 MB: ${value <= 60e6 ? 'met' : 'not met'} (${mb(value)})`);
      console.log(
        `  connections the idle operator holds: ${connections.get(mode)} (the floor: ${connections.get('floor')})`,
      );
    }
  }
}
