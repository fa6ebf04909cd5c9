// Child process of the footprint test and benchmark (issue 15 §3): loads what an operator in a pod
// loads, starts an operator with one controller on ConfigMaps, lets it idle, and prints its memory
// as JSON on its last line.
// argv: mode, kubeconfig path, namespace, service account dir, server port[, kind of the cached
// objects for the cache modes: ConfigMap (default) or Secret]. Modes:
// - baseline: nothing loaded (bare Node);
// - core: the import of @tosdk/core only;
// - in-cluster: loadKubeConfig from the service account, as in a pod;
// - light: loadKubeConfig from the kubeconfig file;
// - client-node: client-node's KubeConfig (the way before loadKubeConfig);
// - floor: no tosdk; bare node:https lists the ConfigMaps of `namespace` with the service account's
//   token and holds a watch open: what any client of the API server must load and keep;
// - cache: no operator; an Informer on `namespace` with managedFields pruned to tosdk's own entries
//   (as InformerEventSource caches by default): heap per cached object against the JSON of the
//   objects as served and as cached, and against the same objects JSON.parse'd into an array.
// - operator-cache: the same objects cached the way an operator does: a controller on ConfigMaps whose
//   primaries are none (a label selector matching nothing) with an InformerEventSource on the
//   objects of `namespace` (default keepOwn pruning, through the operator's shared informers, mapped
//   by owner references to ConfigMaps): heap per cached object of a second operator, after a first
//   one ran the same code; `heap` is the whole difference (an empty namespace gives the heap of the
//   operator itself: code compiled while it ran, hidden classes, its watches).
// With TOSDK_FOOTPRINT_DETAIL=1 the child also prints where its memory is: /proc/self/smaps summed
// by mapping (the node binary, anonymous, heap), V8's heap spaces, and the connections it holds open.
// With TOSDK_FOOTPRINT_TRACE=1 the child also lists the packages and the Node built-ins it loaded
// (a module hook that itself costs memory, so the memory of a traced run is not a measurement).
import { registerHooks } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const [mode, kubeconfigPath, namespace, serviceAccountDir, port, kind = 'ConfigMap'] = process.argv.slice(2);
const trace = process.env['TOSDK_FOOTPRINT_TRACE'] === '1';
const detail = process.env['TOSDK_FOOTPRINT_DETAIL'] === '1';
const socketsAtStart = detail ? openSockets() : 0;
const packages = new Set();
if (trace) {
  registerHooks({
    load(url, context, next) {
      const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      if (match) packages.add(match[1]);
      return next(url, context);
    },
  });
}

const settle = async () => {
  for (let i = 0; i < 5; i++) {
    globalThis.gc?.();
    await sleep(50);
  }
};

let operator;
let floorWatch;
const extra = {};
if (mode === 'floor') {
  const https = process.getBuiltinModule('node:https');
  const fs = process.getBuiltinModule('node:fs');
  const agent = new https.Agent({ keepAlive: true, ca: fs.readFileSync(`${serviceAccountDir}/ca.crt`) });
  const token = fs.readFileSync(`${serviceAccountDir}/token`, 'utf8');
  const get = (path) =>
    new Promise((resolve, reject) => {
      const request = https.request(
        { host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}` } },
        resolve,
      );
      request.on('error', reject);
      request.end();
    });
  const list = await get(`/api/v1/namespaces/${namespace}/configmaps`);
  let body = '';
  list.setEncoding('utf8');
  for await (const chunk of list) body += chunk;
  const { resourceVersion } = JSON.parse(body).metadata;
  floorWatch = await get(
    `/api/v1/namespaces/${namespace}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`,
  );
  floorWatch.on('data', () => undefined);
  floorWatch.on('close', () => agent.destroy());
} else if (mode === 'operator-cache') {
  const core = await import('@tosdk/core');
  const kubeConfig = core.loadKubeConfig({ env: { KUBECONFIG: kubeconfigPath, HOME: '/nonexistent' } });
  const client = core.KubernetesClient.fromKubeConfig(kubeConfig);
  const type = core.ResourceTypes[kind];
  const served = (await client.list(type, { namespace })).items;
  const servedJson = served.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);
  const count = served.length;
  served.length = 0;
  client.close();
  let cached = 0;
  const run = async () => {
    const started = new core.Operator({ kubeConfig });
    let source;
    started.register(
      {
        reconcile: () => core.UpdateControl.noUpdate(),
        prepareEventSources: (context) => {
          source = new core.InformerEventSource({ type, namespaces: [namespace] }, context);
          return { configmaps: source };
        },
      },
      {
        resourceType: core.ResourceTypes.ConfigMap,
        name: 'footprint-operator',
        namespaces: [namespace],
        labelSelector: 'footprint-primary=none',
      },
    );
    await started.start();
    for (let i = 0; i < 600 && source.list().length < count; i++) await sleep(50);
    if (count === 0) await sleep(300); // the watch is open
    cached = source.list().length;
    return started;
  };
  // a first operator compiles the code it runs, then goes
  await (await run()).stop();
  await settle();
  const before = process.memoryUsage().heapUsed;
  operator = await run();
  await settle();
  const heap = process.memoryUsage().heapUsed - before;
  Object.assign(extra, {
    objects: cached,
    heap,
    heapPerObject: heap / cached,
    servedJsonPerObject: servedJson / count,
  });
} else if (mode === 'cache') {
  const core = await import('@tosdk/core');
  const kubeConfig = core.loadKubeConfig({ env: { KUBECONFIG: kubeconfigPath, HOME: '/nonexistent' } });
  const client = core.KubernetesClient.fromKubeConfig(kubeConfig);
  const type = core.ResourceTypes[kind];
  const served = (await client.list(type, { namespace })).items;
  const servedJson = served.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);
  const servedText = served.map((o) => JSON.stringify(o));
  served.length = 0;
  const cache = async () => {
    const informer = new core.Informer({
      client,
      type,
      namespace,
      transform: core.managedFieldsTransform('keepOwn', ['tosdk']),
    });
    await informer.start();
    await informer.stop(); // the cache stays; no stream keeps buffers alive
    return informer;
  };
  // a first informer compiles the code it runs (bytecode is heap too), then goes
  await cache();
  await settle();
  let before = process.memoryUsage().heapUsed;
  const informer = await cache();
  await settle();
  const cacheHeap = process.memoryUsage().heapUsed - before;
  const cached = informer.list();
  const cachedJson = cached.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);
  // the floor of any cache: the objects as JSON.parse makes them (unpruned), in an array
  await settle();
  before = process.memoryUsage().heapUsed;
  const parsed = servedText.map((text) => JSON.parse(text));
  await settle();
  const parsedHeap = process.memoryUsage().heapUsed - before;
  Object.assign(extra, {
    objects: cached.length,
    heapPerObject: cacheHeap / cached.length,
    servedJsonPerObject: servedJson / cached.length,
    cachedJsonPerObject: cachedJson / cached.length,
    parsedHeapPerObject: parsedHeap / parsed.length,
  });
  client.close();
} else if (mode !== 'baseline') {
  let kubeConfig;
  if (mode === 'client-node') {
    const { KubeConfig } = await import('@kubernetes/client-node');
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
  }
  const core = await import('@tosdk/core');
  if (mode === 'light') {
    kubeConfig = core.loadKubeConfig({ env: { KUBECONFIG: kubeconfigPath, HOME: '/nonexistent' } });
  }
  if (mode === 'in-cluster') {
    kubeConfig = core.loadKubeConfig({
      env: { HOME: '/nonexistent', KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port },
      serviceAccountDir,
    });
  }
  if (kubeConfig) {
    operator = new core.Operator({ kubeConfig });
    operator.register(
      { reconcile: () => core.UpdateControl.noUpdate() },
      { resourceType: core.ResourceTypes.ConfigMap, name: 'configmaps', namespaces: [namespace] },
    );
    await operator.start();
  }
}
// idle: let start-up garbage go, as a pod does between events
await settle();
const { rss, heapUsed } = process.memoryUsage();
const loaded = trace
  ? {
      packages: [...packages].sort(),
      // Node built-ins loaded so far (undici comes with an ES import of node:http, for one)
      builtins: process.moduleLoadList
        .filter((m) => m.startsWith('NativeModule '))
        .map((m) => m.slice('NativeModule '.length)),
    }
  : {};
const where = detail ? memoryDetail() : {};
console.log(JSON.stringify({ mode, rss, heapUsed, ...extra, ...loaded, ...where }));
await operator?.stop();
floorWatch?.destroy();

/** RSS by mapping kind, V8 heap spaces in use and the sockets held (TOSDK_FOOTPRINT_DETAIL=1). */
function memoryDetail() {
  const fs = process.getBuiltinModule('node:fs');
  const v8 = process.getBuiltinModule('node:v8');
  const smaps = { binary: 0, libraries: 0, heap: 0, anonymous: 0, other: 0 };
  let kind = 'other';
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1];
      kind =
        name === process.execPath || name.endsWith('/node')
          ? 'binary'
          : name === '[heap]'
            ? 'heap'
            : name === ''
              ? 'anonymous'
              : name.startsWith('/')
                ? 'libraries'
                : 'other';
      continue;
    }
    const rssLine = /^Rss:\s+(\d+) kB/.exec(line);
    if (rssLine) smaps[kind] += Number(rssLine[1]) * 1024;
  }
  const spaces = {};
  for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = s.space_used_size;
  const resources = process.getActiveResourcesInfo();
  return {
    smaps,
    spaces,
    committedHeap: v8.getHeapStatistics().total_physical_size,
    // sockets opened since the child started: its connections to the API server (it serves nothing)
    connections: openSockets() - socketsAtStart,
    resources: [...new Set(resources)],
  };
}

/** Open socket descriptors of this process. */
function openSockets() {
  const fs = process.getBuiltinModule('node:fs');
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}
