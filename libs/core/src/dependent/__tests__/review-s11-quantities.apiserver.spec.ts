import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1PodSpec } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * Review (session 11) of how dependents compare resource quantities with what the API server stores.
 * kube-apiserver decodes every `resource.Quantity` field of a built-in kind (apimachinery
 * pkg/api/resource: `Quantity.UnmarshalJSON` trims blanks and `ParseQuantity` caps binary amounts at
 * 2^63-1) and writes it back in its canonical form (`1024Mi` as `1Gi`). A matcher that sees a
 * difference where the server stored the same value applies again on every reconcile, forever.
 */
const suite = apiServerSuite();

/** Patches the status once per spec change, so a test can wait for each reconcile to finish. */
class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget) {
    const observed = `${resource.spec?.size ?? 0}`;
    if (resource.status?.observed === observed) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed };
    return UpdateControl.patchStatus(resource);
  }
}

/** A Deployment whose pod spec is `podSpec`. */
class DeploymentWith extends CRUDKubernetesDependentResource<V1Deployment, Widget> {
  constructor(
    private readonly podSpec: V1PodSpec,
    useSSA = true,
  ) {
    super({ resourceType: ResourceTypes.Deployment, useSSA });
  }
  protected desired(p: Widget): V1Deployment {
    const name = p.metadata!.name!;
    return {
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: this.podSpec },
      },
    };
  }
}

/**
 * Runs a workflow with `dependent`, reconciles the primary three more times, and returns the object
 * the server stored and how many writes the dependent's resource received.
 */
async function reconcileRepeatedly<T>(
  name: string,
  dependent: CRUDKubernetesDependentResource<never, Widget>,
  read: (ns: string) => Promise<T | undefined>,
  resource: string,
): Promise<{ stored: T | undefined; writes: number }> {
  const ns = await newNamespace(suite.admin);
  suite.operator().register(new StatusReconciler(), {
    resourceType: Widget,
    name,
    namespaces: [ns],
    workflow: { dependents: [{ dependent }] },
  });
  await suite.operators[0].start();
  await suite.admin.create(Widget, widget('q', ns));
  const observed = async (v: string) =>
    (await suite.admin.get(Widget, new ResourceID('q', ns)))?.status?.observed === v;
  await waitFor(() => observed('0'), 'first pass');
  for (let i = 1; i <= 3; i++) {
    await suite.admin.mergePatch(Widget, new ResourceID('q', ns), { spec: { size: i } });
    await waitFor(() => observed(`${i}`), `pass ${i}`);
  }
  return { stored: await read(ns), writes: suite.server.requests.writes({ namespace: ns, resource }) };
}

const readDeployment = (ns: string) => suite.admin.get(ResourceTypes.Deployment, new ResourceID('q', ns));

describe('review s11: dependents and the quantities the API server stores', () => {
  it('[FINDING S11-CQ1] a quantity written with blanks around it (" 500m"), a binary amount past 2^63-1 ("8Ei") or a bare sign or point ("+", ".") is stored as "500m", "9223372036854775807" and "0", and the dependent applied again on every reconcile', async () => {
    const dependent = new DeploymentWith({
      containers: [
        {
          name: 'web',
          image: 'nginx',
          resources: {
            limits: { cpu: ' 500m ', memory: '8Ei', 'ephemeral-storage': '+' },
            requests: { cpu: '\t250m', memory: '16Ei', 'ephemeral-storage': '.' },
          },
        },
      ],
    });
    const { stored, writes } = await reconcileRepeatedly(
      's11-cq1',
      dependent as never,
      readDeployment,
      'deployments',
    );
    // what kube-apiserver stores (Quantity.UnmarshalJSON, ParseQuantity's BinarySI cap)
    expect(stored?.spec?.template.spec?.containers[0].resources).toEqual({
      limits: { cpu: '500m', memory: '9223372036854775807', 'ephemeral-storage': '0' },
      requests: { cpu: '250m', memory: '9223372036854775807', 'ephemeral-storage': '0' },
    });
    expect(writes).toBe(1);
  });

  it('[FINDING S11-CQ2] a dependent writing emptyDir.sizeLimit "1024Mi", a resourceFieldRef divisor "1024Ki" (env, downwardAPI and projected items) or an ephemeral volume claim of "2048Mi" got "1Gi", "1Mi" and "2Gi" back and applied again on every reconcile', async () => {
    const ref = { containerName: 'web', resource: 'limits.memory', divisor: '1024Ki' };
    const dependent = new DeploymentWith({
      containers: [
        {
          name: 'web',
          image: 'nginx',
          env: [{ name: 'MEM', valueFrom: { resourceFieldRef: ref } }],
        },
      ],
      volumes: [
        { name: 'scratch', emptyDir: { sizeLimit: '1024Mi' } },
        { name: 'info', downwardAPI: { items: [{ path: 'mem', resourceFieldRef: ref }] } },
        {
          name: 'proj',
          projected: { sources: [{ downwardAPI: { items: [{ path: 'mem', resourceFieldRef: ref }] } }] },
        },
        {
          name: 'eph',
          ephemeral: {
            volumeClaimTemplate: {
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2048Mi' } } },
            },
          },
        },
      ],
    });
    const { stored, writes } = await reconcileRepeatedly(
      's11-cq2',
      dependent as never,
      readDeployment,
      'deployments',
    );
    const spec = stored?.spec?.template.spec;
    expect([
      spec?.volumes?.[0].emptyDir?.sizeLimit,
      spec?.containers[0].env?.[0].valueFrom?.resourceFieldRef?.divisor,
      spec?.volumes?.[1].downwardAPI?.items?.[0].resourceFieldRef?.divisor,
      spec?.volumes?.[2].projected?.sources?.[0].downwardAPI?.items?.[0].resourceFieldRef?.divisor,
      spec?.volumes?.[3].ephemeral?.volumeClaimTemplate?.spec.resources?.requests?.storage,
    ]).toEqual(['1Gi', '1Mi', '1Mi', '1Mi', '2Gi']);
    expect(writes).toBe(1);
  });

  it('[FINDING S11-CQ5] a dependent without server-side apply (useSSA: false) whose container asks for "2000m" CPU and "1024Mi" memory got "2" and "1Gi" back and updated on every reconcile', async () => {
    const dependent = new DeploymentWith(
      {
        containers: [
          {
            name: 'web',
            image: 'nginx',
            resources: { requests: { cpu: '2000m', memory: '1024Mi' } },
          },
        ],
        volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1024Mi' } }],
      },
      false,
    );
    const { stored, writes } = await reconcileRepeatedly(
      's11-cq5',
      dependent as never,
      readDeployment,
      'deployments',
    );
    expect(stored?.spec?.template.spec?.containers[0].resources?.requests).toEqual({
      cpu: '2',
      memory: '1Gi',
    });
    expect(writes).toBe(1);
  });
});
