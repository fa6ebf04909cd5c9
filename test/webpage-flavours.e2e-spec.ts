// The WebPage sample end to end, once per flavour: what a user sees on the API server when they
// create, change, expose, break and delete a page, and when the operator restarts in between.
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { EventResourceType, KubernetesApiError, ResourceID, ResourceTypes } from '@tosdk/core';
import {
  createOperatorTestingModule,
  NamespaceRestrictionOverrider,
  OperatorTestEnvironment,
  waitFor,
} from '@tosdk/nestjs/testing';
import type { ResourceType } from '@tosdk/core';
import { OperatorRegistry } from '@tosdk/nestjs';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { WebPageAppModule } from '../apps/webpage/src/app.module.js';
import { WEBPAGE_FLAVOURS } from '../apps/webpage/src/webpage-flavour.js';
import type { WebPageFlavour } from '../apps/webpage/src/webpage-flavour.js';
import { HTML_HASH_ANNOTATION } from '../apps/webpage/src/webpage-names.js';
import { WebPage, WEBPAGE_CRD_PATH } from '../apps/webpage/src/webpage.resource.js';
import { quietLogs, ReconcileRecorder, webPage } from '../apps/webpage/src/__tests__/support/e2e-support.js';

const HELLO = '<html><body><h1>Hello</h1></body></html>';

// one API server for the file; a namespace per test
let env: OperatorTestEnvironment;
beforeAll(async () => {
  env = await OperatorTestEnvironment.start({
    crds: [WEBPAGE_CRD_PATH],
    server: { simulateWorkloads: { readyDelayMs: 20 } },
  });
});
afterAll(async () => {
  await env?.stop();
});

describe.each(WEBPAGE_FLAVOURS.map((f) => [f]))('WebPage sample, %s flavour', (flavour: WebPageFlavour) => {
  const running: OperatorTestingContext[] = [];

  afterEach(async () => {
    for (const t of running.splice(0)) await t.close();
  });

  /** The app as a user runs it (this flavour), restricted to `namespace` when given. */
  async function startApp(
    namespace?: string,
    terminationTimeoutMs?: number,
  ): Promise<OperatorTestingContext> {
    const t = await createOperatorTestingModule({
      testEnvironment: env,
      imports: [
        WebPageAppModule.forRoot({
          flavour,
          logStream: quietLogs,
          defaultMetrics: false,
          // a fast retry, so a retry storm would show within the tests' own waiting
          operator: {
            terminationTimeoutMs,
            controllers: { webpage: { retry: { maxAttempts: 3, initialInterval: 20 } } },
          },
        }),
      ],
      providers: [
        ReconcileRecorder,
        ...(namespace
          ? [
              {
                provide: NamespaceRestrictionOverrider,
                useValue: new NamespaceRestrictionOverrider(namespace),
              },
            ]
          : []),
      ],
      restrictToNamespace: namespace === undefined,
    });
    running.push(t);
    return t;
  }

  const exists = async (t: OperatorTestingContext, type: ResourceType, name: string, ns = t.namespace) =>
    (await t.adminClient.get(type, new ResourceID(name, ns))) !== undefined;

  it('[EP-01] a new page gets a ConfigMap, an nginx Deployment mounting it, a Service, owner references and a ready status', async () => {
    const t = await startApp();
    const created = await t.adminClient.create(WebPage, webPage(t.namespace, 'hello', { html: HELLO }));

    const page = await t.waitForResource(WebPage, 'hello', (p) => p.status?.ready === true);
    expect(page.status).toEqual({ configMapName: 'hello-html', observedGeneration: 1, ready: true });
    expect(page.spec?.exposed).toBe(false); // the CRD's default

    const cm = await t.waitForResource(ResourceTypes.ConfigMap, 'hello-html');
    expect(cm.data).toEqual({ 'index.html': HELLO });
    const deployment = await t.waitForResource(ResourceTypes.Deployment, 'hello');
    const pod = deployment.spec!.template.spec!;
    expect(pod.containers[0].image).toMatch(/^nginx:/);
    expect(pod.volumes).toEqual([
      expect.objectContaining({ name: 'html', configMap: expect.objectContaining({ name: 'hello-html' }) }),
    ]);
    expect(pod.containers[0].volumeMounts).toEqual([
      expect.objectContaining({ name: 'html', mountPath: '/usr/share/nginx/html' }),
    ]);
    const service = await t.waitForResource(ResourceTypes.Service, 'hello');
    expect(service.spec?.selector).toEqual(deployment.spec!.selector.matchLabels);
    expect(await exists(t, ResourceTypes.Ingress, 'hello')).toBe(false);

    for (const owned of [cm, deployment, service]) {
      expect(owned.metadata?.ownerReferences).toEqual([
        expect.objectContaining({
          kind: 'WebPage',
          name: 'hello',
          uid: created.metadata!.uid,
          apiVersion: WebPage.apiVersion,
        }),
      ]);
    }
  });

  it('[EP-20] a changed page reaches the ConfigMap, rolls the Deployment and is reported for the new generation', async () => {
    const t = await startApp();
    await t.adminClient.create(WebPage, webPage(t.namespace, 'news', { html: HELLO }));
    const first = await t.waitForResource(ResourceTypes.Deployment, 'news');
    await t.waitForResource(WebPage, 'news', (p) => p.status?.ready === true);

    const updated = '<html><body><h1>Breaking news</h1></body></html>';
    await t.adminClient.mergePatch(WebPage, new ResourceID('news', t.namespace), { spec: { html: updated } });

    const cm = await t.waitForResource(
      ResourceTypes.ConfigMap,
      'news-html',
      (c) => c.data?.['index.html'] === updated,
    );
    expect(cm.data).toEqual({ 'index.html': updated });
    const rolled = await t.waitForResource(
      ResourceTypes.Deployment,
      'news',
      (d) =>
        d.spec?.template.metadata?.annotations?.[HTML_HASH_ANNOTATION] !==
        first.spec?.template.metadata?.annotations?.[HTML_HASH_ANNOTATION],
    );
    expect(rolled.metadata?.generation).toBeGreaterThan(first.metadata!.generation!);
    const page = await t.waitForResource(
      WebPage,
      'news',
      (p) => p.status?.observedGeneration === 2 && p.status.ready === true,
    );
    expect(page.status?.errorMessage).toBeUndefined();
  });

  it('[DR-02] exposing a page creates its Ingress and unexposing it deletes the Ingress', async () => {
    const t = await startApp();
    await t.adminClient.create(WebPage, webPage(t.namespace, 'shop', { html: HELLO }));
    await t.waitForResource(WebPage, 'shop', (p) => p.status?.ready === true);
    expect(await exists(t, ResourceTypes.Ingress, 'shop')).toBe(false);

    const id = new ResourceID('shop', t.namespace);
    await t.adminClient.mergePatch(WebPage, id, { spec: { exposed: true } });
    const ingress = await t.waitForResource(ResourceTypes.Ingress, 'shop');
    const path = ingress.spec?.rules?.[0]?.http?.paths[0];
    expect(path?.path).toBe(`/${t.namespace}/shop`);
    expect(path?.backend.service?.name).toBe('shop');
    expect(ingress.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'WebPage',
      name: 'shop',
      apiVersion: WebPage.apiVersion,
    });

    await t.adminClient.mergePatch(WebPage, id, { spec: { exposed: false } });
    await t.waitForDeletion(ResourceTypes.Ingress, 'shop');
    // the rest stays
    await t.waitForResource(
      WebPage,
      'shop',
      (p) => p.status?.observedGeneration === 3 && p.status.ready === true,
    );
    expect(await exists(t, ResourceTypes.Deployment, 'shop')).toBe(true);
    expect(await exists(t, ResourceTypes.Service, 'shop')).toBe(true);
  });

  it('[DR-02] deleting a page deletes everything it owns (the API server garbage-collects by owner reference)', async () => {
    const t = await startApp();
    await t.adminClient.create(WebPage, webPage(t.namespace, 'gone', { html: HELLO, exposed: true }));
    await t.waitForResource(ResourceTypes.Ingress, 'gone');
    await t.waitForResource(WebPage, 'gone', (p) => p.status?.ready === true);

    await t.adminClient.delete(WebPage, new ResourceID('gone', t.namespace));
    await t.waitForDeletion(WebPage, 'gone');
    await t.waitForDeletion(ResourceTypes.ConfigMap, 'gone-html');
    await t.waitForDeletion(ResourceTypes.Deployment, 'gone');
    await t.waitForDeletion(ResourceTypes.Service, 'gone');
    await t.waitForDeletion(ResourceTypes.Ingress, 'gone');
  });

  it('[EP-09] a blank page gets an error status and one Warning event, is not retried, and recovers when fixed', async () => {
    const t = await startApp();
    // the schema rejects an empty page outright
    const empty = await t.adminClient
      .create(WebPage, webPage(t.namespace, 'empty', { html: '' }))
      .catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(KubernetesApiError);
    expect((empty as KubernetesApiError).status).toBe(422);

    // a blank one passes the schema; the operator reports it
    await t.adminClient.create(WebPage, webPage(t.namespace, 'blank', { html: '  \n\t ' }));
    const failed = await t.waitForResource(WebPage, 'blank', (p) => p.status?.errorMessage !== undefined);
    expect(failed.status).toMatchObject({ ready: false, observedGeneration: 1 });
    expect(failed.status?.errorMessage).toContain('spec.html is blank');
    const warning = await waitFor(async () => {
      const events = await t.adminClient.list(EventResourceType, { namespace: t.namespace });
      return events.items.find((e) => e.involvedObject.name === 'blank' && e.type === 'Warning');
    });
    expect(warning).toMatchObject({
      reason: 'InvalidWebPage',
      message: expect.stringContaining('spec.html is blank'),
    });
    expect(await exists(t, ResourceTypes.ConfigMap, 'blank-html')).toBe(false);

    // another page reconciles to ready meanwhile: with retries on (20 ms here) the blank one would have been retried
    await t.adminClient.create(WebPage, webPage(t.namespace, 'other', { html: HELLO }));
    await t.waitForResource(WebPage, 'other', (p) => p.status?.ready === true);
    const recorder = t.module.get(ReconcileRecorder);
    expect(recorder.retries.filter((k) => k === `${t.namespace}/blank`)).toEqual([]);
    expect(recorder.startsOf(`${t.namespace}/blank`)).toBe(1);

    // the fix reconciles at once and clears the error
    await t.adminClient.mergePatch(WebPage, new ResourceID('blank', t.namespace), { spec: { html: HELLO } });
    const fixed = await t.waitForResource(
      WebPage,
      'blank',
      (p) => p.status?.ready === true && p.status.errorMessage === undefined,
    );
    expect(fixed.status).toEqual({ configMapName: 'blank-html', observedGeneration: 2, ready: true });
  });

  it("[ES-17] when the controller's namespaces change at run time, pages and secondaries of the new namespace are handled", async () => {
    const t = await startApp();
    const other = await env.createNamespace('webpage-more');
    await t.adminClient.create(WebPage, webPage(other, 'later', { html: HELLO }));
    await t.adminClient.create(WebPage, webPage(t.namespace, 'here', { html: HELLO }));
    await t.waitForResource(WebPage, 'here', (p) => p.status?.ready === true);
    // the page of the other namespace waited, untouched
    expect((await t.adminClient.get(WebPage, new ResourceID('later', other)))?.status).toBeUndefined();

    await t.module.get(OperatorRegistry).getController('webpage').changeNamespaces([t.namespace, other]);
    const later = await t.waitForResource(WebPage, 'later', (p) => p.status?.ready === true, {
      namespace: other,
    });
    expect(later.status?.configMapName).toBe('later-html');
    // the secondaries' informers followed: a change of a secondary there is seen and repaired
    await t.adminClient.mergePatch(ResourceTypes.ConfigMap, new ResourceID('later-html', other), {
      data: { 'index.html': 'tampered' },
    });
    await t.waitForResource(ResourceTypes.ConfigMap, 'later-html', (c) => c.data?.['index.html'] === HELLO, {
      namespace: other,
    });
    await env.deleteNamespace(other);
  });

  it('[DR-08] an operator restarted in the middle converges to the changes made while it was down', async () => {
    const namespace = await env.createNamespace('webpage-restart');
    const id = new ResourceID('site', namespace);
    // a termination timeout, so the reconciliation running at close() finishes before the operator is
    // down: with the default 0 it is abandoned and may still write after close() (see the runtime README)
    const first = await startApp(namespace, 10_000);
    await first.adminClient.create(WebPage, webPage(namespace, 'site', { html: HELLO }));
    // stopped in the middle: as soon as the first secondary exists, before the page is ready
    await first.waitForResource(ResourceTypes.ConfigMap, 'site-html', undefined, { namespace });
    await first.close();

    // while no operator runs: a new page, exposure, and someone deletes the Deployment
    const changed = '<html><body>changed while down</body></html>';
    await first.adminClient.mergePatch(WebPage, id, { spec: { html: changed, exposed: true } });
    await first.adminClient.delete(ResourceTypes.Deployment, id); // 404 (undefined) when it was not made yet
    await env.waitForDeletion(ResourceTypes.Deployment, id);

    const second = await startApp(namespace);
    await second.waitForResource(
      ResourceTypes.ConfigMap,
      'site-html',
      (c) => c.data?.['index.html'] === changed,
      { namespace },
    );
    await second.waitForResource(ResourceTypes.Deployment, 'site', undefined, { namespace });
    await second.waitForResource(ResourceTypes.Ingress, 'site', undefined, { namespace });
    const page = await second.waitForResource(
      WebPage,
      'site',
      (p) => p.status?.observedGeneration === 2 && p.status.ready === true,
      {
        namespace,
      },
    );
    expect(page.status).toEqual({ configMapName: 'site-html', observedGeneration: 2, ready: true });
    await env.deleteNamespace(namespace);
  });
});
