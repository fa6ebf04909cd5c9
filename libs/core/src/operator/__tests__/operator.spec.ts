import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeApiServer } from '@tosdk/apiserver';
import type { Context } from '../../api/context.js';
import { DeleteControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import { ControllerConfiguration } from '../../config/controller-configuration.js';
import { Operator } from '../operator.js';
import { consoleLogger } from '../../util/logger.js';
import { newNamespace, startServer, waitFor, Widget, widget } from './support.js';

let server: KubeApiServer;
let admin: KubernetesClient;
const operators: Operator[] = [];

beforeAll(async () => {
  ({ server, client: admin } = await startServer());
});
afterEach(async () => {
  await Promise.all(operators.splice(0).map((o) => o.stop()));
});
afterAll(async () => {
  admin.close();
  await server.stop();
});

function operator(options: Partial<ConstructorParameters<typeof Operator>[0]> = {}): Operator {
  const op = new Operator({
    kubeConfig: server.kubeConfig(),
    logger: process.env.TOSDK_TEST_LOG ? consoleLogger('debug') : undefined,
    ...options,
  });
  operators.push(op);
  return op;
}

@ControllerConfiguration({ resourceType: Widget })
class ConfigMapWidgetReconciler implements Reconciler<Widget>, Cleaner<Widget> {
  cleanups = 0;
  reconciles = 0;
  async reconcile(resource: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    this.reconciles++;
    const { name, namespace } = resource.metadata!;
    await context.client.apply(
      ResourceTypes.ConfigMap,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-cm`, namespace },
        data: { value: resource.spec?.value ?? '' },
      },
      { fieldManager: context.controllerName },
    );
    resource.status = { observed: resource.spec?.value, observedGeneration: resource.metadata?.generation };
    return UpdateControl.patchStatus(resource);
  }
  async cleanup(resource: Widget, context: Context<Widget>): Promise<DeleteControl> {
    this.cleanups++;
    const { name, namespace } = resource.metadata!;
    await context.client.delete(ResourceTypes.ConfigMap, new ResourceID(`${name}-cm`, namespace));
    return DeleteControl.defaultDelete();
  }
}

describe('Operator against @tosdk/apiserver', () => {
  it('[EP-03] stop() on an operator that never started returns cleanly', async () => {
    const op = operator();
    op.register(new ConfigMapWidgetReconciler());
    await expect(op.stop()).resolves.toBeUndefined();
    expect(op.runtimeInfo.isStarted()).toBe(false);
  });

  it('[EP-01] [EP-20] creates a ConfigMap from the primary, patches its status (observedGeneration), and deleting the primary runs cleanup', async () => {
    const ns = await newNamespace(admin);
    const op = operator();
    const reconciler = new ConfigMapWidgetReconciler();
    op.register(reconciler, { namespaces: [ns] });
    await op.start();
    await admin.create(Widget, widget('w1', ns, { value: 'hello' }));
    const id = new ResourceID('w1', ns);
    await waitFor(async () => (await admin.get(Widget, id))?.status?.observed === 'hello', 'status patched');
    const cm = await admin.get(ResourceTypes.ConfigMap, new ResourceID('w1-cm', ns));
    expect(cm?.data).toEqual({ value: 'hello' });
    const w = await admin.get(Widget, id);
    expect(w?.status?.observedGeneration).toBe(w?.metadata?.generation);
    await admin.delete(Widget, id);
    await waitFor(async () => (await admin.get(Widget, id)) === undefined, 'primary gone');
    expect(reconciler.cleanups).toBe(1);
    expect(await admin.get(ResourceTypes.ConfigMap, new ResourceID('w1-cm', ns))).toBeUndefined();
  });
});
