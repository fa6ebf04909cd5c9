import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

const suite = apiServerSuite();

/** Records every run and patches the status so the test can wait for a pass to finish. */
class StatusReconciler implements Reconciler<Widget> {
  runs = 0;
  reconcile(resource: Widget) {
    this.runs++;
    const observed = `${resource.spec?.size ?? 0}`;
    if (resource.status?.observed === observed) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed };
    return UpdateControl.patchStatus(resource);
  }
}

/** A Deployment whose container ports (regular and init) leave `protocol` to the server default. */
class PortDeployment extends CRUDKubernetesDependentResource<V1Deployment, Widget> {
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
            initContainers: [{ name: 'init', image: 'busybox', ports: [{ containerPort: 9000 }] }],
            containers: [
              {
                name: 'web',
                image: 'nginx',
                ports: [
                  { name: 'http', containerPort: 80 },
                  { name: 'dns', containerPort: 53, protocol: 'UDP' },
                ],
              },
            ],
          },
        },
      },
    };
  }
}

/** A Service whose ports leave `protocol` to the server default. */
class PortService extends CRUDKubernetesDependentResource<V1Service, Widget> {
  constructor() {
    super({ resourceType: ResourceTypes.Service });
  }
  protected desired(p: Widget): V1Service {
    const name = p.metadata!.name!;
    return {
      metadata: { name },
      spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    };
  }
}

describe('list-map key defaults in the managed-fields matcher', () => {
  it('[DR-10] ports applied without protocol (keyed with the TCP default) match on later passes: no re-apply', async () => {
    const ns = await newNamespace(suite.admin);
    const r = new StatusReconciler();
    suite.operator().register(r, {
      resourceType: Widget,
      name: 'dr10-key-defaults',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new PortDeployment() }, { dependent: new PortService() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    const observed = async (v: string) =>
      (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.observed === v;
    await waitFor(() => observed('0'), 'first pass');
    const stored = await suite.admin.get(ResourceTypes.Deployment, new ResourceID('w', ns));
    expect(stored?.spec?.template.spec?.containers[0].ports?.[0].protocol).toBe('TCP');
    const deploymentWrites = () => suite.server.requests.writes({ namespace: ns, resource: 'deployments' });
    const serviceWrites = () => suite.server.requests.writes({ namespace: ns, resource: 'services' });
    expect(deploymentWrites()).toBe(1);
    expect(serviceWrites()).toBe(1);
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: i } });
      await waitFor(() => observed(`${i}`), `pass ${i}`);
    }
    expect(deploymentWrites()).toBe(1);
    expect(serviceWrites()).toBe(1);
  });
});
