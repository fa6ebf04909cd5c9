// The widgets benchmark's tosdk contenders, written the way the README tells users to:
// - `tosdk`: the README's reconciler: the ConfigMap by server-side apply through
//   `context.resourceOperations()` (watched by an InformerEventSource), then
//   `UpdateControl.patchStatus(widget)`;
// - `tosdk-workflow`: the ConfigMap as a CRUDKubernetesDependentResource of a managed workflow
//   with the default workflow executor, the reconciler returning `UpdateControl.patchStatus`.
// - `tosdk-idle-reconciler` (restart only, after `tosdk`'s): `tosdk`'s operator and event source
//   with a reconciler that returns `UpdateControl.noUpdate()` at once: what a restart costs the
//   framework alone (lists, caches, events, 5,000 dispatches), apart from the reconciler's own work.
// - `tosdk-ssa` (only when named): `tosdk` with the status written by server-side apply, the
//   framework's default (`useSSA` true), instead of the scenario's merge patch.
// Status patches are JSON merge patches (`useSSA: false`), the scenario's write; the ConfigMap is
// applied server-side.
import type { V1ConfigMap } from '@kubernetes/client-node';
import {
  CRUDKubernetesDependentResource,
  defineResource,
  InformerEventSource,
  loadKubeConfig,
  Operator,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type {
  Context,
  ControllerConfigurationOptions,
  CustomResource,
  EventSourceContext,
  EventSources,
  Reconciler,
} from '@tosdk/core';
import type { Connection, ContenderRun, Phase, WidgetStatus } from './widgets-common.js';
import { CONCURRENCY, desiredConfigMap, desiredStatus, NAMESPACE, WIDGET } from './widgets-common.js';

type Widget = CustomResource<{ value?: string }, WidgetStatus>;
const Widget = defineResource<Widget>({ group: WIDGET.group, version: WIDGET.version, kind: WIDGET.kind });

/** The README's reconciler: apply the ConfigMap through the event source, then patch the status. */
class WidgetReconciler implements Reconciler<Widget> {
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return {
      configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: ResourceTypes.ConfigMap }, context),
    };
  }

  async reconcile(widget: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    await context.resourceOperations().serverSideApply<V1ConfigMap>(desiredConfigMap(widget));
    widget.status = desiredStatus(widget);
    return UpdateControl.patchStatus(widget);
  }
}

class ConfigMapDependent extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
  constructor() {
    super({ resourceType: ResourceTypes.ConfigMap, name: 'configmap' });
  }
  protected desired(widget: Widget): V1ConfigMap {
    const { metadata, data } = desiredConfigMap(widget);
    return { metadata: { name: metadata.name }, data };
  }
}

/** The framework-alone variant's reconciler: nothing to do, nothing written. */
class IdleWidgetReconciler extends WidgetReconciler {
  override reconcile(): Promise<UpdateControl<Widget>> {
    return Promise.resolve(UpdateControl.noUpdate());
  }
}

/** The workflow variant's reconciler: the dependent is applied by the managed workflow first. */
class WorkflowWidgetReconciler implements Reconciler<Widget> {
  reconcile(widget: Widget): UpdateControl<Widget> {
    widget.status = desiredStatus(widget);
    return UpdateControl.patchStatus(widget);
  }
}

/** Starts the operator at `go`; on a restart, `go` resolves once every widget was reconciled and nothing runs. */
export function tosdk(
  conn: Connection,
  n: number,
  phase: Phase,
  workflow: boolean,
  statusBySsa = false,
  reconciler: Reconciler<Widget> = new WidgetReconciler(),
): ContenderRun {
  let finished = 0;
  let busy = 0;
  let allDone: (() => void) | undefined;
  const maybeDone = (): void => {
    if (finished >= n && busy === 0) allDone?.();
  };
  const operator = new Operator({
    kubeConfig: loadKubeConfig({ env: { KUBECONFIG: conn.kubeconfig } }),
    concurrentReconciliationThreads: CONCURRENCY,
    metrics: {
      reconciliationFinished: () => {
        finished++;
        maybeDone();
      },
      executorChanged: (queued, inFlight) => {
        busy = queued + inFlight;
        maybeDone();
      },
    },
  });
  const config: ControllerConfigurationOptions<Widget> = {
    resourceType: Widget,
    name: 'widgets',
    namespaces: [NAMESPACE],
    useSSA: statusBySsa,
  };
  if (workflow) {
    operator.register(new WorkflowWidgetReconciler(), {
      ...config,
      workflow: { dependents: [{ dependent: new ConfigMapDependent() }] },
    });
  } else operator.register(reconciler, config);
  return {
    async go() {
      const done = new Promise<void>((resolve) => (allDone = resolve));
      await operator.start();
      if (phase === 'restart') {
        maybeDone();
        await done;
      }
      return { reconciles: finished };
    },
    async stop() {
      await operator.stop();
    },
  };
}

/** A no-change restart of `tosdk`'s operator whose reconciler does nothing (`tosdk-idle-reconciler`). */
export function tosdkIdleReconciler(conn: Connection, n: number): ContenderRun {
  return tosdk(conn, n, 'restart', false, false, new IdleWidgetReconciler());
}
