// S8 review of the Tomcat sample: Webapps moving between Tomcats, context paths Tomcat maps to one
// WAR, Tomcat names the workload kinds refuse, specs that turn invalid, and the guards that the
// Deployment, Service and application list come back after someone edits or deletes them.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import { waitFor } from '@tosdk/nestjs/testing';
import { CONTEXTS_ANNOTATION, WEBAPP_LIST_KEY } from '../tomcat-names.js';
import { Tomcat, Webapp } from '../tomcat.resource.js';
import { tomcat, tomcatOperatorPerTest, webapp } from './support/e2e-support.js';

const operator = tomcatOperatorPerTest();

const WAIT = { timeoutMs: 30_000 };
// how long a condition that should follow a reconcile is given before the test calls it missing
const SETTLE = { timeoutMs: 10_000 };

const listOf = (c: V1ConfigMap | undefined) => c?.data?.[WEBAPP_LIST_KEY] ?? '';

describe('S8 review: Tomcat sample', () => {
  it('[FINDING S8-SA4] a Webapp moved to another Tomcat (spec.tomcat changed) is removed from the old Tomcat’s application list', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(Tomcat, tomcat(ns, 'old', { version: '10.1', replicas: 1 }));
    await t.adminClient.create(Tomcat, tomcat(ns, 'new', { version: '10.1', replicas: 1 }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'shop', { tomcat: 'old', url: 'http://files.local/shop.war', contextPath: '/shop' }),
    );
    await t.waitForResource(Webapp, 'shop', (w) => w.status?.ready === true, WAIT);
    await t.adminClient.mergePatch(Webapp, new ResourceID('shop', ns), { spec: { tomcat: 'new' } });
    await t.waitForResource(
      ResourceTypes.ConfigMap,
      'new-webapps',
      (c) => listOf(c) === 'shop http://files.local/shop.war\n',
      WAIT,
    );
    await t.waitForResource(
      Webapp,
      'shop',
      (w) => w.status?.ready === true && w.status.observedGeneration === 2,
      WAIT,
    );
    // what a user sees: the old Tomcat still downloads and serves the WAR of a Webapp that left it
    await waitFor(
      async () =>
        listOf(await t.adminClient.get(ResourceTypes.ConfigMap, new ResourceID('old-webapps', ns))) === '',
      { ...SETTLE, description: 'the old Tomcat’s list without shop' },
    );
    // the old Tomcat's pods follow (its own reconciliation, after the list changed)
    await t.waitForResource(
      ResourceTypes.Deployment,
      'old',
      (d) => d.spec?.template.metadata?.annotations?.[CONTEXTS_ANNOTATION] === '',
      WAIT,
    );
  }, 90_000);

  it('[FINDING S8-SA5] contextPath "/ROOT" is refused or deployed under its own WAR: it must not share ROOT.war with "/" nor stay not-ready without an error', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(Tomcat, tomcat(ns, 'srv', { version: '10.1', replicas: 1 }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'home', { tomcat: 'srv', url: 'http://files.local/home.war', contextPath: '/' }),
    );
    await t.waitForResource(Webapp, 'home', (w) => w.status?.ready === true, WAIT);
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'rooted', { tomcat: 'srv', url: 'http://files.local/other.war', contextPath: '/ROOT' }),
    );
    await t.waitForResource(Webapp, 'rooted', (w) => w.status?.observedGeneration === 1, WAIT);
    const list = listOf(await t.adminClient.get(ResourceTypes.ConfigMap, new ResourceID('srv-webapps', ns)));
    const wars = list
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(' ')[0]);
    // two lines writing /webapps/ROOT.war: whichever the init container fetches last wins
    expect(new Set(wars).size).toBe(wars.length);
    // and the Webapp itself: either ready or an error status naming the field
    const rooted = await t.waitForResource(
      Webapp,
      'rooted',
      (w) => w.status?.ready === true || !!w.status?.errorMessage,
      SETTLE,
    );
    if (!rooted.status?.ready) expect(rooted.status?.errorMessage).toContain('spec.contextPath');
  }, 90_000);

  it('[FINDING S8-SA6] a Tomcat whose name the Service kind refuses (a dot) reports the failure in its status', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(Tomcat, tomcat(ns, 'web.v1', { version: '10.1', replicas: 1 }));
    // the controller ran: the Deployment (a subdomain name) exists, the Service (a label name) was refused
    await t.waitForResource(ResourceTypes.Deployment, 'web.v1', undefined, WAIT);
    expect(await t.adminClient.get(ResourceTypes.Service, new ResourceID('web.v1', ns))).toBeUndefined();
    // a user looks at the Tomcat: its status should say what is wrong
    const reported = await t.waitForResource(
      Tomcat,
      'web.v1',
      (c) => JSON.stringify(c.status ?? {}).includes('metadata.name'),
      SETTLE,
    );
    expect(JSON.stringify(reported.status)).toContain('web.v1');
  }, 60_000);

  it('[FINDING S8-SA7] a deployed Webapp whose spec becomes invalid: status and the Tomcat’s list agree (not "deployedOn: []" while the pods still fetch it)', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(Tomcat, tomcat(ns, 'srv', { version: '10.1', replicas: 1 }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'shop', { tomcat: 'srv', url: 'http://files.local/shop.war', contextPath: '/shop' }),
    );
    await t.waitForResource(Webapp, 'shop', (w) => w.status?.ready === true, WAIT);
    await t.adminClient.mergePatch(Webapp, new ResourceID('shop', ns), {
      spec: { url: 'ftp://files.local/shop.war' },
    });
    const invalid = await t.waitForResource(Webapp, 'shop', (w) => !!w.status?.errorMessage, WAIT);
    expect(invalid.status?.deployedOn).toEqual([]);
    // the status says deployed nowhere: the list (what the pods fetch) should not hold it either
    await waitFor(
      async () =>
        listOf(await t.adminClient.get(ResourceTypes.ConfigMap, new ResourceID('srv-webapps', ns))) === '',
      { ...SETTLE, description: 'srv list without the invalid Webapp' },
    );
  }, 60_000);

  it('guard: a negative spec.replicas is refused by the CRD schema, naming the field', async () => {
    const t = await operator();
    await expect(
      t.adminClient.create(Tomcat, tomcat(t.namespace, 'neg', { version: '10.1', replicas: -1 })),
    ).rejects.toThrow(/spec\.replicas/);
    await expect(
      t.adminClient.create(Tomcat, tomcat(t.namespace, 'bad', { version: '10.1 ; rm -rf /' })),
    ).rejects.toThrow(/spec\.version/);
  });

  it('guard: the Deployment, Service and application list come back after someone edits or deletes them; the list is not rewritten when nothing changed', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(Tomcat, tomcat(ns, 'srv', { version: '10.1', replicas: 2 }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'shop', { tomcat: 'srv', url: 'http://files.local/shop.war', contextPath: '/shop' }),
    );
    await t.waitForResource(Webapp, 'shop', (w) => w.status?.ready === true, WAIT);
    const id = new ResourceID('srv', ns);

    // an edit of replicas and image is reverted
    await t.adminClient.mergePatch(ResourceTypes.Deployment, id, { spec: { replicas: 5 } });
    await t.waitForResource(ResourceTypes.Deployment, 'srv', (d) => d.spec?.replicas === 2, WAIT);

    // deleted Deployment and Service are recreated
    await t.adminClient.delete(ResourceTypes.Deployment, id);
    await t.adminClient.delete(ResourceTypes.Service, id);
    await waitFor(
      async () =>
        !!(await t.adminClient.get(ResourceTypes.Service, id)) &&
        (await t.adminClient.get(ResourceTypes.Deployment, id))?.spec?.template.metadata?.annotations?.[
          CONTEXTS_ANNOTATION
        ] === '/shop',
      { ...WAIT, description: 'Deployment and Service recreated' },
    );

    // a hand edit of the list is reverted, a deleted list recreated
    const listId = new ResourceID('srv-webapps', ns);
    await t.adminClient.mergePatch(ResourceTypes.ConfigMap, listId, {
      data: { [WEBAPP_LIST_KEY]: 'x http://evil/x.war\n' },
    });
    await t.waitForResource(
      ResourceTypes.ConfigMap,
      'srv-webapps',
      (c) => listOf(c) === 'shop http://files.local/shop.war\n',
      WAIT,
    );
    await t.adminClient.delete(ResourceTypes.ConfigMap, listId);
    const back = await t.waitForResource(
      ResourceTypes.ConfigMap,
      'srv-webapps',
      (c) => listOf(c) === 'shop http://files.local/shop.war\n',
      WAIT,
    );

    // scaling reconciles both controllers (pod events map to the Webapp): the list is not rewritten
    await t.adminClient.mergePatch(Tomcat, id, { spec: { replicas: 3 } });
    await t.waitForResource(Webapp, 'shop', (w) => w.status?.deployedOn?.length === 3, WAIT);
    const after = await t.adminClient.get(ResourceTypes.ConfigMap, listId);
    expect(after?.metadata?.resourceVersion).toBe(back.metadata?.resourceVersion);
  }, 90_000);

  it('guard: a Webapp naming a Tomcat that does not exist says so; it is deployed when the Tomcat is created', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'early', { tomcat: 'later', url: 'http://files.local/e.war', contextPath: '/e' }),
    );
    const waiting = await t.waitForResource(Webapp, 'early', (w) => !!w.status?.errorMessage, WAIT);
    expect(waiting.status?.errorMessage).toContain('Tomcat "later" does not exist');
    await t.adminClient.create(Tomcat, tomcat(ns, 'later', { version: '10.1' }));
    await t.waitForResource(Webapp, 'early', (w) => w.status?.ready === true && !w.status.errorMessage, WAIT);
  }, 60_000);
});
