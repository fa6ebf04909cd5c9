// S14 review of the WebPage sample, once per flavour: what a user who copies it hits when someone
// edits or deletes what the operator made.
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import type { ResourceType } from '@tosdk/core';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { WebPageAppModule } from '../app.module.js';
import { WEBPAGE_FLAVOURS } from '../webpage-flavour.js';
import type { WebPageFlavour } from '../webpage-flavour.js';
import { WebPage, WEBPAGE_CRD_PATH } from '../webpage.resource.js';
import { quietLogs, webPage } from './support/e2e-support.js';

const HELLO = '<html><body><h1>Hello</h1></body></html>';
const WAIT = { timeoutMs: 30_000 };

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

describe.each(WEBPAGE_FLAVOURS.map((f) => [f]))(
  'S14 review: WebPage sample, %s flavour',
  (flavour: WebPageFlavour) => {
    const running: OperatorTestingContext[] = [];
    afterEach(async () => {
      for (const t of running.splice(0)) await t.close();
    });

    async function startApp(): Promise<OperatorTestingContext> {
      const t = await createOperatorTestingModule({
        testEnvironment: env,
        imports: [WebPageAppModule.forRoot({ flavour, logStream: quietLogs, defaultMetrics: false })],
      });
      running.push(t);
      return t;
    }

    it('guard: every secondary deleted by hand comes back, and a hand edit of the ConfigMap is reverted', async () => {
      const t = await startApp();
      const ns = t.namespace;
      await t.adminClient.create(WebPage, webPage(ns, 'page', { html: HELLO, exposed: true }));
      await t.waitForResource(WebPage, 'page', (p) => p.status?.ready === true, WAIT);
      const kinds: [ResourceType, string][] = [
        [ResourceTypes.ConfigMap, 'page-html'],
        [ResourceTypes.Deployment, 'page'],
        [ResourceTypes.Service, 'page'],
        [ResourceTypes.Ingress, 'page'],
      ];
      for (const [type, name] of kinds) {
        const before = await t.adminClient.get(type, new ResourceID(name, ns));
        await t.adminClient.delete(type, new ResourceID(name, ns));
        await waitFor(
          async () => {
            const now = await t.adminClient.get(type, new ResourceID(name, ns));
            return !!now && now.metadata?.uid !== before?.metadata?.uid;
          },
          { ...WAIT, description: `${type.kind} ${name} recreated` },
        );
      }
      await t.adminClient.mergePatch(ResourceTypes.ConfigMap, new ResourceID('page-html', ns), {
        data: { 'index.html': 'defaced' },
      });
      await t.waitForResource(
        ResourceTypes.ConfigMap,
        'page-html',
        (c) => c.data?.['index.html'] === HELLO,
        WAIT,
      );
      expect(
        (await t.adminClient.get(WebPage, new ResourceID('page', ns)))?.status?.errorMessage,
      ).toBeUndefined();
    }, 90_000);
    it("[FINDING S14-AP6] a Service of the user with the page's name is not taken over (and garbage collected with the page); the page's status names it", async () => {
      const t = await startApp();
      const ns = t.namespace;
      await t.adminClient.create(ResourceTypes.Service, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'shop', namespace: ns, labels: { team: 'mine' } },
        spec: { selector: { app: 'mine' }, ports: [{ name: 'db', port: 5432 }] },
      });
      await t.adminClient.create(WebPage, webPage(ns, 'shop', { html: HELLO }));
      const reported = await t.waitForResource(WebPage, 'shop', (p) => !!p.status?.errorMessage, WAIT);
      expect(reported.status?.ready).toBe(false);
      expect(reported.status?.errorMessage).toContain('shop');
      expect(reported.status?.errorMessage).toMatch(/delete or rename/);
      const mine = await t.adminClient.get(ResourceTypes.Service, new ResourceID('shop', ns));
      expect(mine?.spec?.selector).toEqual({ app: 'mine' });
      expect(mine?.metadata?.ownerReferences ?? []).toEqual([]);
      await t.adminClient.delete(WebPage, new ResourceID('shop', ns));
      await t.waitForDeletion(WebPage, 'shop', WAIT);
      await t.waitForDeletion(ResourceTypes.ConfigMap, 'shop-html', WAIT);
      expect(await t.adminClient.get(ResourceTypes.Service, new ResourceID('shop', ns))).toBeDefined();
    }, 90_000);
  },
);
