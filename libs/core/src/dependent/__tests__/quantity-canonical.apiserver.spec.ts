import { describe, expect, it } from '@jest/globals';
import type { V1Deployment } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

const suite = apiServerSuite();

/** Records every run and patches the status so the test can wait for a pass to finish. */
class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget) {
    const observed = `${resource.spec?.size ?? 0}`;
    if (resource.status?.observed === observed) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed };
    return UpdateControl.patchStatus(resource);
  }
}

/** A Deployment whose resource quantities are written in forms the API server rewrites. */
class QuantityDeployment extends CRUDKubernetesDependentResource<V1Deployment, Widget> {
  constructor() {
    super({ resourceType: ResourceTypes.Deployment });
  }
  protected desired(p: Widget): V1Deployment {
    const name = p.metadata!.name!;
    return {
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx',
                resources: {
                  // (requests within the limits, as kube-apiserver's ValidateResourceRequirements wants)
                  requests: { cpu: '0.5', memory: '1024Mi' },
                  limits: { cpu: '2000m', memory: '1.5Gi', 'ephemeral-storage': '1000M' },
                },
              },
            ],
          },
        },
      },
    };
  }
}

describe('resource quantities the API server canonicalises', () => {
  it('[DR-10] a dependent written with 2000m / 1024Mi / 0.5 matches the canonical 2 / 1Gi / 500m it reads back: no re-apply', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr10-quantities',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new QuantityDeployment() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('q', ns));
    const observed = async (v: string) =>
      (await suite.admin.get(Widget, new ResourceID('q', ns)))?.status?.observed === v;
    await waitFor(() => observed('0'), 'first pass');
    const stored = await suite.admin.get(ResourceTypes.Deployment, new ResourceID('q', ns));
    // what a real cluster returns, so a matcher comparing strings naively would see a change every pass
    expect(stored?.spec?.template.spec?.containers[0].resources).toEqual({
      requests: { cpu: '500m', memory: '1Gi' },
      limits: { cpu: '2', memory: '1536Mi', 'ephemeral-storage': '1G' },
    });
    const deploymentWrites = () => suite.server.requests.writes({ namespace: ns, resource: 'deployments' });
    expect(deploymentWrites()).toBe(1);
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, new ResourceID('q', ns), { spec: { size: i } });
      await waitFor(() => observed(`${i}`), `pass ${i}`);
    }
    expect(deploymentWrites()).toBe(1);
  });
});
