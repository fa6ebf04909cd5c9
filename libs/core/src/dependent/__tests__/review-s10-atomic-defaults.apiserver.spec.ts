import { describe, expect, it } from '@jest/globals';
import type { V1RoleBinding } from '@kubernetes/client-node';
import { UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { defineResource } from '../../api/resource-type.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * Review (session 10): kube-apiserver defaults fields inside atomic lists (the apply owns the whole
 * list, so its owned view holds them too): a RoleBinding's User and Group subjects get
 * `apiGroup: rbac.authorization.k8s.io` and its roleRef the same (rbac/v1 SetDefaults_Subject,
 * SetDefaults_RoleBinding); a StatefulSet's claim templates `spec.volumeMode: Filesystem` (DR-17).
 * A dependent whose desired state leaves them out saw a difference on every reconcile and applied
 * again (JOSDK's SSA matcher sanitizes the claim templates' volumeMode likewise). @tosdk/apiserver
 * fills these defaults since S10-DF3/DF14.
 */
const suite = apiServerSuite();
const RoleBinding = defineResource<V1RoleBinding>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'RoleBinding',
});

class Counting implements Reconciler<Widget> {
  runs = 0;
  reconcile(resource: Widget) {
    this.runs++;
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
}

describe('review s10: defaults inside atomic lists', () => {
  it('[FINDING S10-MT1] a RoleBinding dependent whose subjects leave apiGroup out is applied once, not on every reconcile', async () => {
    const ns = await newNamespace(suite.admin);
    class Binding extends CRUDKubernetesDependentResource<V1RoleBinding, Widget> {
      constructor() {
        super({ resourceType: RoleBinding });
      }
      protected desired(p: Widget): V1RoleBinding {
        return {
          metadata: { name: p.metadata!.name! },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [
            { kind: 'User', name: 'alice' },
            { kind: 'Group', name: 'readers' },
            { kind: 'ServiceAccount', name: 'default', namespace: ns },
          ],
        };
      }
    }
    const r = new Counting();
    suite.operator().register(r, {
      resourceType: Widget,
      name: 's10-mt1',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Binding() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(
      async () => (await suite.admin.get(RoleBinding, new ResourceID('w', ns))) !== undefined,
      'binding',
    );
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: i } });
      await waitFor(() => r.runs >= i + 1, `reconcile ${i}`);
    }
    const stored = await suite.admin.get(RoleBinding, new ResourceID('w', ns));
    expect(stored?.subjects?.map((s) => s.apiGroup)).toEqual([
      'rbac.authorization.k8s.io',
      'rbac.authorization.k8s.io',
      undefined, // a service account's is "", left out (omitempty)
    ]);
    expect(suite.server.requests.writes({ namespace: ns, resource: 'rolebindings' })).toBe(1);
  });
});
