// The widgets benchmark's peer "client-node": a hand-written @kubernetes/client-node 2 informer
// loop, as a user without an operator framework writes it: makeInformer on the Widgets, a work queue
// with 50 workers (a key waiting in the queue is not queued twice), per widget the ConfigMap by
// server-side apply and the status by merge patch, skipped when the status already says done (so
// its own status event ends the loop).
import {
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Connection, ContenderRun, Phase, Widget } from './widgets-common.js';
import {
  CONCURRENCY,
  desiredConfigMap,
  desiredStatus,
  FIELD_MANAGER,
  NAMESPACE,
  WIDGET,
} from './widgets-common.js';

export function clientNodeLoop(conn: Connection, _n: number, _phase: Phase): ContenderRun {
  const kc = new KubeConfig();
  kc.loadFromFile(conn.kubeconfig);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const informer = makeInformer<Widget & KubernetesObject>(
    kc,
    `/apis/${WIDGET.group}/${WIDGET.version}/namespaces/${NAMESPACE}/${WIDGET.plural}`,
    () =>
      custom.listNamespacedCustomObject({
        group: WIDGET.group,
        version: WIDGET.version,
        namespace: NAMESPACE,
        plural: WIDGET.plural,
      }) as Promise<never>,
  );

  const queue: string[] = [];
  const queued = new Set<string>();
  let running = 0;
  let stopped = false;

  const reconcile = async (name: string): Promise<void> => {
    const w = informer.get(name, NAMESPACE);
    if (!w) return;
    const want = desiredStatus(w);
    if (w.status?.configMap === want.configMap && w.status.observed === want.observed) return;
    await objects.patch(
      desiredConfigMap(w),
      undefined,
      undefined,
      FIELD_MANAGER,
      true,
      PatchStrategy.ServerSideApply,
    );
    await custom.patchNamespacedCustomObjectStatus(
      {
        group: WIDGET.group,
        version: WIDGET.version,
        namespace: NAMESPACE,
        plural: WIDGET.plural,
        name,
        body: { status: want },
      },
      mergePatch,
    );
  };

  const pump = (): void => {
    while (!stopped && running < CONCURRENCY && queue.length > 0) {
      const name = queue.shift()!;
      queued.delete(name);
      running++;
      reconcile(name)
        .catch((e: unknown) => {
          // a failed write goes to the back of the queue again
          if (!stopped) enqueue(name);
          if (!stopped)
            console.error(`client-node loop: ${name}: ${e instanceof Error ? e.message : String(e)}`);
        })
        .finally(() => {
          running--;
          pump();
        });
    }
  };
  const enqueue = (name: string): void => {
    if (queued.has(name)) return;
    queued.add(name);
    queue.push(name);
    pump();
  };
  const onObject = (w: Widget & KubernetesObject): void => enqueue(w.metadata!.name!);
  informer.on('add', onObject);
  informer.on('update', onObject);
  informer.on('error', () => {
    // client-node's informers stop on an error; start again as its README shows
    if (!stopped) setTimeout(() => void informer.start(), 1_000);
  });
  return {
    async go() {
      await informer.start();
      return undefined;
    },
    async stop() {
      stopped = true;
      await informer.stop();
    },
  };
}
