// The widgets benchmark's peer "dot-i": @dot-i/k8s-operator (a devDependency of bench/; it brings
// @kubernetes/client-node 0.20 nested under it). Its `watchResource` hands events one at a time to
// the handler (an async queue of concurrency 1), so, to keep 50 writes in flight as the scenario
// says, the handler passes each widget to a 50-worker queue of ours and returns. Per widget: the
// ConfigMap by server-side apply (client-node 0.20's KubernetesObjectApi, from the operator's own
// KubeConfig; the package has no apply helper) and the status by the package's
// `patchResourceStatus` (a JSON merge patch); skipped when the status already says done, so its own
// status event ends the loop.
import { createRequire } from 'node:module';
import DotIOperatorModule from '@dot-i/k8s-operator';
import type { ResourceEvent, ResourceMeta } from '@dot-i/k8s-operator';
import type { Connection, ContenderRun, Phase, Widget } from './widgets-common.js';
import {
  CONCURRENCY,
  desiredConfigMap,
  desiredStatus,
  FIELD_MANAGER,
  NAMESPACE,
  WIDGET,
} from './widgets-common.js';

/** client-node 0.20's object API, as far as this contender uses it. */
interface ObjectApi020 {
  patch(
    spec: object,
    pretty?: string,
    dryRun?: string,
    fieldManager?: string,
    force?: boolean,
    options?: { headers: Record<string, string> },
  ): Promise<unknown>;
}
interface ClientNode020 {
  KubernetesObjectApi: { makeApiClient(kc: unknown): ObjectApi020 };
}

// the package is CommonJS with `exports.default`; Node's ESM import gives module.exports
const DotIOperator = DotIOperatorModule.default;
// the client-node the package itself resolves (0.20), for its KubeConfig
const clientNode020 = createRequire(createRequire(import.meta.url).resolve('@dot-i/k8s-operator'))(
  '@kubernetes/client-node',
) as ClientNode020;

class WidgetOperator extends DotIOperator {
  private readonly queue: Array<{ meta: ResourceMeta; widget: Widget }> = [];
  private readonly queued = new Set<string>();
  private running = 0;
  private stopped = false;
  private objects: ObjectApi020 | undefined;

  protected async init(): Promise<void> {
    this.objects = clientNode020.KubernetesObjectApi.makeApiClient(this.kubeConfig);
    await this.watchResource(
      WIDGET.group,
      WIDGET.version,
      WIDGET.plural,
      async (e: ResourceEvent) => {
        if (e.type === DotIOperatorModule.ResourceEventType.Deleted) return;
        this.enqueue(e.meta, e.object);
      },
      NAMESPACE,
    );
  }

  private enqueue(meta: ResourceMeta, widget: Widget): void {
    const key = meta.name;
    const waiting = this.queue.find((q) => q.meta.name === key);
    if (waiting) {
      // a newer version of a widget still waiting replaces the older one
      waiting.meta = meta;
      waiting.widget = widget;
      return;
    }
    this.queued.add(key);
    this.queue.push({ meta, widget });
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.running < CONCURRENCY && this.queue.length > 0) {
      const item = this.queue.shift()!;
      this.queued.delete(item.meta.name);
      this.running++;
      this.reconcile(item.meta, item.widget)
        .catch((e: unknown) => {
          if (!this.stopped)
            console.error(`dot-i: ${item.meta.name}: ${e instanceof Error ? e.message : String(e)}`);
        })
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }

  private async reconcile(meta: ResourceMeta, w: Widget): Promise<void> {
    const want = desiredStatus(w);
    if (w.status?.configMap === want.configMap && w.status.observed === want.observed) return;
    await this.objects!.patch(desiredConfigMap(w), undefined, undefined, FIELD_MANAGER, true, {
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    await this.patchResourceStatus(meta, want);
  }

  override stop(): void {
    this.stopped = true;
    super.stop();
  }
}

export function dotI(conn: Connection, _n: number, _phase: Phase): ContenderRun {
  // the package reads the default kubeconfig (KUBECONFIG) in its constructor
  process.env.KUBECONFIG = conn.kubeconfig;
  const operator = new WidgetOperator();
  return {
    async go() {
      await operator.start();
      return undefined;
    },
    async stop() {
      operator.stop();
    },
  };
}
