import { describe, expect, it, jest } from '@jest/globals';
import type { V1Deployment } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * Issue 15 §1 (H8 finding F4, its list-item part): kube-apiserver serialises built-in kinds with Go's
 * `omitempty` at any depth, so an intent's empty list or map inside a list item (a container's
 * `env: []`, a volume's `items: []`) is not in the object the informer caches. Such an apply changes
 * nothing, so the managed-fields matcher must match it, or every reconciliation sends a no-op apply.
 * Custom resources keep what was written, so there an empty value inside a list item stays a value.
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;

/** Records every run and patches the status so the test can wait for a pass to finish. */
class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget) {
    const observed = `${resource.spec?.size ?? 0}`;
    if (resource.status?.observed === observed) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed };
    return UpdateControl.patchStatus(resource);
  }
}

/** A Deployment whose containers and volumes carry empty optional lists and maps. */
class EmptiesDeployment extends CRUDKubernetesDependentResource<V1Deployment, Widget> {
  constructor() {
    super({ resourceType: ResourceTypes.Deployment });
  }
  protected desired(p: Widget): V1Deployment {
    const name = p.metadata!.name!;
    return {
      metadata: { name, labels: {} },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name }, annotations: {} },
          spec: {
            initContainers: [{ name: 'init', image: 'busybox', env: [], args: [] }],
            containers: [
              {
                name: 'web',
                image: 'nginx',
                env: [],
                ports: [],
                envFrom: [],
                volumeMounts: [{ name: 'config', mountPath: '/etc/config' }],
              },
              { name: 'side', image: 'busybox', env: [{ name: 'A', value: 'a' }], ports: [] },
            ],
            volumes: [{ name: 'config', configMap: { name: `${name}-cm`, items: [] } }],
            nodeSelector: {},
          },
        },
      },
    };
  }
}

describe('omitempty inside list items (built-in kinds) in the managed-fields matcher', () => {
  it('[DR-10] an SSA dependent Deployment with env: [] and ports: [] in its containers and items: [] in a volume makes no write after its first apply', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr10-omitempty-items',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new EmptiesDeployment() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    const observed = async (v: string) =>
      (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.observed === v;
    await waitFor(() => observed('0'), 'first pass', WAIT_MS);
    const stored = await suite.admin.get(ResourceTypes.Deployment, new ResourceID('w', ns));
    const web = stored?.spec?.template.spec?.containers.find((c) => c.name === 'web');
    // the server omits them, as kube-apiserver does: the cache cannot show them
    expect(web?.image).toBe('nginx');
    expect(web && 'env' in web).toBe(false);
    expect(stored?.spec?.template.spec?.volumes?.[0].configMap?.name).toBe('w-cm');
    expect(stored?.spec?.template.spec?.volumes?.[0].configMap).not.toHaveProperty('items');
    const deploymentWrites = () => suite.server.requests.writes({ namespace: ns, resource: 'deployments' });
    expect(deploymentWrites()).toBe(1);
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: i } });
      await waitFor(() => observed(`${i}`), `pass ${i}`, WAIT_MS);
    }
    expect(deploymentWrites()).toBe(1);
  });

  it('[DR-10] a changed value next to the empty lists inside a container is still applied', async () => {
    const ns = await newNamespace(suite.admin);
    class Changing extends EmptiesDeployment {
      protected override desired(p: Widget): V1Deployment {
        const d = super.desired(p);
        d.spec!.template.spec!.containers[1].env = [{ name: 'A', value: `a${p.spec?.size ?? 0}` }];
        return d;
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr10-omitempty-items-change',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Changing() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    const id = new ResourceID('w', ns);
    const env = async () =>
      (await suite.admin.get(ResourceTypes.Deployment, id))?.spec?.template.spec?.containers[1].env?.[0]
        .value;
    await waitFor(async () => (await env()) === 'a0', 'first apply', WAIT_MS);
    await suite.admin.mergePatch(Widget, id, { spec: { size: 1 } });
    await waitFor(async () => (await env()) === 'a1', 'the changed env value applied', WAIT_MS);
  });
});

/** Applies the child Widget `<name>-child` whose list item carries `config: {}` unless `spec.size` is 1. */
class ChildApplier implements Reconciler<Widget> {
  readonly errors: unknown[] = [];
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { children: new InformerEventSource<Widget, Widget>({ type: Widget }, context) };
  }
  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    if (w.metadata!.name!.endsWith('-child')) return UpdateControl.noUpdate();
    const item = w.spec?.size === 1 ? { name: 'a' } : { name: 'a', config: {} };
    try {
      await context.resourceOperations().serverSideApply({
        apiVersion: Widget.apiVersion,
        kind: Widget.kind,
        metadata: { name: `${w.metadata!.name}-child`, namespace: w.metadata!.namespace },
        spec: { value: 'child', items: [item] },
      } as Widget);
    } catch (error) {
      this.errors.push(error);
    }
    const observed = `${w.spec?.size ?? 0}`;
    if (w.status?.observed === observed) return UpdateControl.noUpdate();
    w.status = { ...w.status, observed };
    return UpdateControl.patchStatus(w);
  }
}

describe('custom resources keep empty values inside list items', () => {
  it('[ES-19] a custom resource: dropping an empty map from a list item is applied (the server keeps {} there)', async () => {
    const ns = await newNamespace(suite.admin);
    const reconciler = new ChildApplier();
    suite.operator().register(reconciler, { resourceType: Widget, name: 'es19-cr-items', namespaces: [ns] });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    const child = new ResourceID('w-child', ns);
    const items = async () =>
      ((await suite.admin.get(Widget, child))?.spec as { items?: unknown[] } | undefined)?.items;
    await waitFor(async () => (await items()) !== undefined, 'child applied', WAIT_MS);
    expect(await items()).toEqual([{ name: 'a', config: {} }]);
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: 1 } });
    await waitFor(
      async () => JSON.stringify(await items()) === JSON.stringify([{ name: 'a' }]),
      'the item without config: {} applied',
      WAIT_MS,
    );
    expect(reconciler.errors).toEqual([]);
  });
});
