// The Tomcat sample: two controllers (Tomcat and Webapp) in one Nest app with one OperatorModule,
// against @tosdk/apiserver with workload simulation (Deployments roll out ReplicaSets and pods).
// Webapps are mapped from Tomcat, pod and list events through an index on spec.tomcat; deploying a
// Webapp means rendering the Tomcat's application list into a ConfigMap that rolls the pods.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import { waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { CONTEXTS_ANNOTATION, TOMCAT_LABEL, WEBAPP_LIST_KEY } from '../apps/tomcat/src/tomcat-names.js';
import { Tomcat, Webapp } from '../apps/tomcat/src/tomcat.resource.js';
import { tomcat, tomcatOperatorPerTest, webapp } from '../apps/tomcat/src/__tests__/support/e2e-support.js';

const operator = tomcatOperatorPerTest({ http: true });

const WAIT = { timeoutMs: 30_000 };

/** The Tomcat's ready pods and the context paths their template serves. */
async function readyPods(
  t: OperatorTestingContext,
  name: string,
): Promise<Array<{ name: string; contexts: string }>> {
  const pods = await t.adminClient.list(ResourceTypes.Pod, {
    namespace: t.namespace,
    labelSelector: `${TOMCAT_LABEL}=${name}`,
  });
  return pods.items
    .filter(
      (p: V1Pod) =>
        !p.metadata?.deletionTimestamp &&
        (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    )
    .map((p: V1Pod) => ({
      name: p.metadata!.name!,
      contexts: p.metadata?.annotations?.[CONTEXTS_ANNOTATION] ?? '',
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe('Tomcat operator: two controllers in one app', () => {
  it('[ES-08][ES-07] Tomcat and two Webapps: the list ConfigMap, a Deployment serving both, Webapps deployed on every pod; scaling and deleting a Webapp roll the pods and update the statuses', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(Tomcat, tomcat(ns, 'web', { version: '10.1', replicas: 1 }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'shop', { tomcat: 'web', url: 'https://example.org/shop.war', contextPath: '/shop' }),
    );
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'blog', { tomcat: 'web', url: 'https://example.org/blog.war', contextPath: '/blog/v2' }),
    );

    const list = await t.waitForResource(
      ResourceTypes.ConfigMap,
      'web-webapps',
      (c) => (c.data?.[WEBAPP_LIST_KEY] ?? '').split('\n').length === 3,
      WAIT,
    );
    expect(list.data?.[WEBAPP_LIST_KEY]).toBe(
      'blog#v2 https://example.org/blog.war\nshop https://example.org/shop.war\n',
    );
    const tomcatUid = (await t.adminClient.get(Tomcat, new ResourceID('web', ns)))!.metadata!.uid;
    expect(list.metadata?.ownerReferences?.map((r) => r.uid)).toEqual([tomcatUid]);
    await t.waitForResource(ResourceTypes.Service, 'web');
    const deployment = await t.waitForResource(
      ResourceTypes.Deployment,
      'web',
      (d) => d.spec?.template.metadata?.annotations?.[CONTEXTS_ANNOTATION] === '/blog/v2,/shop',
      WAIT,
    );
    expect(deployment.spec?.template.spec?.containers[0]?.image).toBe('tomcat:10.1');
    expect(deployment.spec?.template.spec?.volumes?.find((v) => v.name === 'list')?.configMap?.name).toBe(
      'web-webapps',
    );

    const shop = await t.waitForResource(
      Webapp,
      'shop',
      (w) => w.status?.ready === true && w.status.deployedOn?.length === 1,
      WAIT,
    );
    const pods = await readyPods(t, 'web');
    expect(shop.status?.deployedOn).toEqual(
      pods.filter((p) => p.contexts === '/blog/v2,/shop').map((p) => p.name),
    );
    await t.waitForResource(Webapp, 'blog', (w) => w.status?.ready === true, WAIT);
    await t.waitForResource(Tomcat, 'web', (w) => w.status?.readyReplicas === 1, WAIT);

    // scale: three pods, both Webapps on all three
    await t.adminClient.mergePatch(Tomcat, new ResourceID('web', ns), { spec: { replicas: 3 } });
    await t.waitForResource(
      Tomcat,
      'web',
      (w) => w.status?.readyReplicas === 3 && w.status.observedGeneration === 2,
      WAIT,
    );
    for (const name of ['shop', 'blog'])
      await t.waitForResource(
        Webapp,
        name,
        (w) => w.status?.ready === true && w.status.deployedOn?.length === 3,
        WAIT,
      );

    // delete a Webapp: out of the list, the pods roll to a template without it, the other stays deployed on all
    await t.adminClient.delete(Webapp, new ResourceID('blog', ns));
    await t.waitForDeletion(Webapp, 'blog', WAIT);
    await t.waitForResource(
      ResourceTypes.ConfigMap,
      'web-webapps',
      (c) => c.data?.[WEBAPP_LIST_KEY] === 'shop https://example.org/shop.war\n',
      WAIT,
    );
    await waitFor(
      async () => {
        const now = await readyPods(t, 'web');
        return now.length === 3 && now.every((p) => p.contexts === '/shop');
      },
      { ...WAIT, description: 'pods rolled to /shop only' },
    );
    const rolled = await readyPods(t, 'web');
    const shopAfter = await t.waitForResource(
      Webapp,
      'shop',
      (w) => JSON.stringify(w.status?.deployedOn) === JSON.stringify(rolled.map((p) => p.name)),
      WAIT,
    );
    expect(shopAfter.status?.ready).toBe(true);
    expect(rolled.some((p) => pods.some((old) => old.name === p.name))).toBe(false);

    // [OP-07] one app, one OperatorModule, two controllers: /metrics tells them apart by label
    expect(t.operator.runtimeInfo.registeredControllers().sort()).toEqual(['tomcat', 'webapp']);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^tosdk_reconciliations_succeeded_total\{controller="tomcat",group="tomcat\.sample\.tosdk\.io",version="v1",kind="Tomcat"\} [1-9]\d*$/m,
    );
    expect(metrics).toMatch(
      /^tosdk_reconciliations_succeeded_total\{controller="webapp",group="tomcat\.sample\.tosdk\.io",version="v1",kind="Webapp"\} [1-9]\d*$/m,
    );
  }, 90_000);

  it('a Tomcat deleted while Webapps reference it: they say so and are deployed again when it returns', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(Tomcat, tomcat(ns, 'app-server', { version: '11.0', replicas: 2 }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'docs', { tomcat: 'app-server', url: 'http://files.local/docs.war', contextPath: '/' }),
    );
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'api', { tomcat: 'app-server', url: 'http://files.local/api.war', contextPath: '/api' }),
    );
    for (const name of ['docs', 'api'])
      await t.waitForResource(
        Webapp,
        name,
        (w) => w.status?.ready === true && w.status.deployedOn?.length === 2,
        WAIT,
      );

    await t.adminClient.delete(Tomcat, new ResourceID('app-server', ns));
    for (const name of ['docs', 'api']) {
      const orphan = await t.waitForResource(Webapp, name, (w) => w.status?.ready === false, WAIT);
      expect(orphan.status).toMatchObject({
        deployedOn: [],
        errorMessage: `Tomcat "app-server" does not exist in namespace ${ns}; the Webapp is deployed once it does`,
      });
    }
    await t.waitForDeletion(Tomcat, 'app-server', WAIT);
    await t.waitForDeletion(ResourceTypes.Deployment, 'app-server', WAIT);
    await t.waitForDeletion(ResourceTypes.ConfigMap, 'app-server-webapps', WAIT);

    await t.adminClient.create(Tomcat, tomcat(ns, 'app-server', { version: '11.0', replicas: 1 }));
    for (const name of ['docs', 'api']) {
      const back = await t.waitForResource(
        Webapp,
        name,
        (w) => w.status?.ready === true && w.status.deployedOn?.length === 1,
        WAIT,
      );
      expect(back.status?.errorMessage).toBeUndefined();
    }
    const list = await t.waitForResource(ResourceTypes.ConfigMap, 'app-server-webapps');
    expect(list.data?.[WEBAPP_LIST_KEY]).toBe(
      'ROOT http://files.local/docs.war\napi http://files.local/api.war\n',
    );
    const newUid = (await t.adminClient.get(Tomcat, new ResourceID('app-server', ns)))!.metadata!.uid;
    expect(list.metadata?.ownerReferences?.map((r) => r.uid)).toEqual([newUid]);
  }, 90_000);

  it('an invalid Webapp or a context path taken by an older Webapp gets an error status; fixing the spec or freeing the path deploys it', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(Tomcat, tomcat(ns, 'srv', { version: '10.1' }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'ftp', { tomcat: 'srv', url: 'ftp://files.local/a.war', contextPath: '/a' }),
    );
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'first', { tomcat: 'srv', url: 'http://files.local/one.war', contextPath: '/same' }),
    );
    await t.waitForResource(Webapp, 'first', (w) => w.status?.ready === true, WAIT);
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'second', { tomcat: 'srv', url: 'http://files.local/two.war', contextPath: '/same' }),
    );

    const invalid = await t.waitForResource(Webapp, 'ftp', (w) => !!w.status?.errorMessage, WAIT);
    expect(invalid.status?.errorMessage).toBe(
      'spec.url: "ftp://files.local/a.war" must be an http or https URL',
    );
    const taken = await t.waitForResource(Webapp, 'second', (w) => !!w.status?.errorMessage, WAIT);
    expect(taken.status?.errorMessage).toBe(
      'spec.contextPath /same is already served by Webapp "first" on Tomcat "srv"; choose another path',
    );
    const list = await t.waitForResource(ResourceTypes.ConfigMap, 'srv-webapps');
    expect(list.data?.[WEBAPP_LIST_KEY]).toBe('same http://files.local/one.war\n');

    // the older one goes: the path is free and the second is deployed
    await t.adminClient.delete(Webapp, new ResourceID('first', ns));
    await t.waitForResource(
      Webapp,
      'second',
      (w) => w.status?.ready === true && !w.status.errorMessage,
      WAIT,
    );
    await t.adminClient.mergePatch(Webapp, new ResourceID('ftp', ns), {
      spec: { url: 'https://files.local/a.war' },
    });
    await t.waitForResource(Webapp, 'ftp', (w) => w.status?.ready === true && !w.status.errorMessage, WAIT);
  }, 90_000);
});
