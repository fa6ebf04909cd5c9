// The WebPage operator as deployed (two replicas with leader election), over HTTP: one replica
// reconciles while the other stands by warm; the standby takes over when the leader stops; both
// serve their health probes and /metrics. Once per flavour.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import {
  createOperatorTestingModule,
  NamespaceRestrictionOverrider,
  OperatorTestEnvironment,
  waitFor,
} from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { WebPageAppModule } from '../apps/webpage/src/app.module.js';
import { WEBPAGE_FLAVOURS } from '../apps/webpage/src/webpage-flavour.js';
import type { WebPageFlavour } from '../apps/webpage/src/webpage-flavour.js';
import { WebPage, WEBPAGE_CRD_PATH } from '../apps/webpage/src/webpage.resource.js';
import { quietLogs, ReconcileRecorder, webPage } from '../apps/webpage/src/__tests__/support/e2e-support.js';

interface Probe {
  status: number;
  operator: Record<string, unknown> | undefined;
}

async function probe(url: string, which: 'liveness' | 'readiness'): Promise<Probe> {
  const res = await fetch(`${url}/health/${which}`);
  const body = (await res.json()) as {
    info?: Record<string, Record<string, unknown>>;
    error?: Record<string, Record<string, unknown>>;
  };
  return { status: res.status, operator: body.info?.['operator'] ?? body.error?.['operator'] };
}

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

describe.each(WEBPAGE_FLAVOURS.map((f) => [f]))(
  'WebPage operator, two replicas, %s flavour',
  (flavour: WebPageFlavour) => {
    let namespace: string;
    const replicas: OperatorTestingContext[] = [];

    beforeAll(async () => {
      namespace = await env.createNamespace('webpage-replicas');
    });
    afterAll(async () => {
      for (const r of replicas.splice(0)) await r.close();
    });

    /** One replica as the Deployment runs it: leader election on, health and metrics over HTTP. */
    async function replica(identity: string): Promise<OperatorTestingContext> {
      const t = await createOperatorTestingModule({
        testEnvironment: env,
        http: true,
        imports: [
          WebPageAppModule.forRoot({
            flavour,
            logStream: quietLogs,
            defaultMetrics: false,
            operator: {
              leaderElection: {
                leaseName: 'webpage-operator',
                leaseNamespace: namespace,
                identity,
                leaseDurationMs: 2_000,
                renewDeadlineMs: 1_500,
                retryPeriodMs: 200,
                exitOnStopLeading: false,
              },
            },
          }),
        ],
        providers: [
          ReconcileRecorder,
          { provide: NamespaceRestrictionOverrider, useValue: new NamespaceRestrictionOverrider(namespace) },
        ],
        restrictToNamespace: false,
      });
      replicas.push(t);
      return t;
    }

    const holder = async () =>
      (await env.adminClient.get(ResourceTypes.Lease, new ResourceID('webpage-operator', namespace)))?.spec
        ?.holderIdentity;

    it('[OP-01] only the leader reconciles, the standby is warm and ready, and takes over when the leader stops', async () => {
      const first = await replica('replica-a');
      await waitFor(async () => (await holder()) === 'replica-a');
      const second = await replica('replica-b');

      // both serve their probes; the standby is live and ready (warm caches) but not leader
      const leaderReady = await probe(first.url!, 'readiness');
      expect(leaderReady).toMatchObject({
        status: 200,
        operator: expect.objectContaining({ leader: true, started: true }),
      });
      const standbyReady = await probe(second.url!, 'readiness');
      expect(standbyReady).toMatchObject({
        status: 200,
        operator: expect.objectContaining({ leader: false, started: true }),
      });
      expect((await probe(second.url!, 'liveness')).status).toBe(200);

      await env.adminClient.create(WebPage, webPage(namespace, 'site', { html: '<html>v1</html>' }));
      await env.waitForResource(WebPage, new ResourceID('site', namespace), (p) => p.status?.ready === true);
      const key = `${namespace}/site`;
      expect(first.module.get(ReconcileRecorder).startsOf(key)).toBeGreaterThan(0);
      expect(second.module.get(ReconcileRecorder).started).toEqual([]);

      // /metrics of the leader counts the reconciliations of the webpage controller
      const metrics = await fetch(`${first.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      const text = await metrics.text();
      expect(text).toMatch(
        /^tosdk_reconciliations_succeeded_total\{controller="webpage",group="sample\.tosdk\.io",version="v1",kind="WebPage"\} [1-9]\d*$/m,
      );

      // the leader stops (its lease is released); the standby takes over and reconciles a change
      await first.close();
      await waitFor(async () => (await holder()) === 'replica-b', { timeoutMs: 10_000 });
      await env.adminClient.mergePatch(WebPage, new ResourceID('site', namespace), {
        spec: { html: '<html>v2</html>' },
      });
      await env.waitForResource(
        ResourceTypes.ConfigMap,
        new ResourceID('site-html', namespace),
        (c) => c.data?.['index.html'] === '<html>v2</html>',
      );
      await env.waitForResource(
        WebPage,
        new ResourceID('site', namespace),
        (p) => p.status?.observedGeneration === 2,
      );
      expect(second.module.get(ReconcileRecorder).startsOf(key)).toBeGreaterThan(0);
      expect(await probe(second.url!, 'readiness')).toMatchObject({
        status: 200,
        operator: expect.objectContaining({ leader: true }),
      });
    });
  },
);
