import { describe, expect, it, jest } from '@jest/globals';
import type { V1Deployment } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { matchesManagedFields } from '../matchers.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * Review of this session's managed-fields matcher changes (issue 15 §1, H15 findings F1/F2).
 *
 * Go's `omitempty` drops only nil pointers and empty slices and maps. An empty STRUCT (a pointer to
 * a struct with no fields set) is serialised as `{}` and kept by kube-apiserver, and for some
 * structs it means something else than its absence: an empty `metav1.LabelSelector` "matches all
 * objects, a null one matches no objects" (its Go doc). @tosdk/apiserver keeps such structs too
 * (its omitempty walk drops only schema lists and maps). A matcher that treats every empty map the
 * object lacks as "omitted by the server" skips an apply that adds such a selector, so the change
 * never reaches the cluster.
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;

/** Patches the status with the spec size, so the test can wait for a pass to finish. */
class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget) {
    const observed = `${resource.spec?.size ?? 0}`;
    if (resource.status?.observed === observed) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed };
    return UpdateControl.patchStatus(resource);
  }
}

/**
 * A Deployment with a required pod anti-affinity term on the host: without a label selector (a null
 * selector: matches no pod, so no constraint) while the widget's size is 0, with `labelSelector: {}`
 * (matches every pod: at most one pod of anything per node) from size 1 on.
 */
class AntiAffinityDeployment extends CRUDKubernetesDependentResource<V1Deployment, Widget> {
  constructor() {
    super({ resourceType: ResourceTypes.Deployment });
  }
  protected desired(p: Widget): V1Deployment {
    const name = p.metadata!.name!;
    const term: Record<string, unknown> = { topologyKey: 'kubernetes.io/hostname' };
    if ((p.spec?.size ?? 0) >= 1) term.labelSelector = {};
    return {
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            containers: [{ name: 'web', image: 'nginx' }],
            affinity: {
              podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term as never] },
            },
          },
        },
      },
    };
  }
}

describe('review s3: empty structs are values for built-in kinds too', () => {
  // commit 65735d5 (managed-fields matcher: omitempty inside list items) — finding F1 (fixed: only Go maps and lists are omitted)
  it('[DR-10] adding labelSelector: {} to a pod anti-affinity term (a list item) of an SSA dependent Deployment is applied', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'review-s3-affinity',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new AntiAffinityDeployment() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    const id = new ResourceID('w', ns);
    const observed = async (v: string) => (await suite.admin.get(Widget, id))?.status?.observed === v;
    const term = async () =>
      (await suite.admin.get(ResourceTypes.Deployment, id))?.spec?.template.spec?.affinity?.podAntiAffinity
        ?.requiredDuringSchedulingIgnoredDuringExecution?.[0];
    await waitFor(
      async () => (await term())?.topologyKey === 'kubernetes.io/hostname',
      'first apply',
      WAIT_MS,
    );
    expect(await term()).not.toHaveProperty('labelSelector');
    await waitFor(() => observed('0'), 'first pass', WAIT_MS);
    await suite.admin.mergePatch(Widget, id, { spec: { size: 1 } });
    await waitFor(() => observed('1'), 'second pass', WAIT_MS);
    // kube-apiserver (and @tosdk/apiserver) keep an empty struct: the selector now matches every pod
    await waitFor(
      async () => (await term())?.labelSelector !== undefined,
      'labelSelector: {} applied',
      5_000,
    );
    expect((await term())?.labelSelector).toEqual({});
  });

  // pre-existing: last session's F4 fix (map level, before 6f086c6), not a commit of this session — finding F2 (fixed with F1)
  // @tosdk/apiserver serves no PodDisruptionBudget: the object is the one kube-apiserver returns.
  it('[DR-10] an intent adding selector: {} to a PodDisruptionBudget does not match an object without a selector (kube keeps the empty struct: it selects every pod)', () => {
    const actual = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: {
        name: 'p',
        namespace: 'n',
        resourceVersion: '5',
        managedFields: [
          {
            manager: 'op',
            operation: 'Apply',
            apiVersion: 'policy/v1',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { 'f:minAvailable': {} } },
          },
        ],
      },
      spec: { minAvailable: 1 },
    } as KubernetesResource;
    const intent = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p', namespace: 'n' },
      spec: { minAvailable: 1, selector: {} },
    } as KubernetesResource;
    expect(matchesManagedFields(actual, intent, 'op')).toBe(false);
  });
});
