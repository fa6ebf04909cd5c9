import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { FixtureAppModule } from './fixtures/nest-app/app.module.js';
import { GREETING_CRD_PATH } from './fixtures/nest-app/greeting/greeting.resource.js';

interface Probe {
  status: number;
  body: {
    status: string;
    info?: Record<string, Record<string, unknown>>;
    error?: Record<string, Record<string, unknown>>;
  };
}

async function probe(url: string, which: 'liveness' | 'readiness'): Promise<Probe> {
  const res = await fetch(`${url}/health/${which}`);
  return { status: res.status, body: (await res.json()) as Probe['body'] };
}

describe('@tosdk/nestjs health endpoints through the operator life cycle', () => {
  let env: OperatorTestEnvironment;
  let t: OperatorTestingContext;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({ crds: [GREETING_CRD_PATH] });
    t = await createOperatorTestingModule({
      testEnvironment: env,
      imports: [FixtureAppModule.forRoot({ operator: { autoStart: false } })],
      http: true,
    });
  });
  afterAll(async () => {
    env?.server?.faults.clear();
    await t?.close();
    await env?.stop();
  });

  it('is down before start, up while running, names a broken informer, recovers, and is down after stop', async () => {
    // before start (autoStart: false)
    let live = await probe(t.url!, 'liveness');
    let ready = await probe(t.url!, 'readiness');
    expect(live.status).toBe(503);
    expect(ready.status).toBe(503);
    expect(ready.body.error?.['operator']).toMatchObject({ status: 'down', started: false });

    // running
    await t.operator.start();
    live = await probe(t.url!, 'liveness');
    ready = await probe(t.url!, 'readiness');
    expect(live.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body.info?.['operator']).toMatchObject({ status: 'up', started: true, leader: true });

    // informer broken: its watch ends and every list/watch of greetings fails until cleared
    env.server!.faults.failNext({ verb: 'watch', resource: 'greetings', code: 500, times: 1_000_000 });
    env.server!.faults.failNext({ verb: 'list', resource: 'greetings', code: 500, times: 1_000_000 });
    env.server!.faults.closeAllWatches();
    const broken = await waitFor(async () => {
      const p = await probe(t.url!, 'readiness');
      return p.status === 503 ? p : undefined;
    });
    const down = broken.body.error?.['operator'] as {
      unhealthy: Array<{ controller: string; eventSource: string; status: string }>;
    };
    expect(down.unhealthy).toEqual(
      expect.arrayContaining([expect.objectContaining({ controller: 'greetingreconciler' })]),
    );
    // the processing loop is still alive
    expect((await probe(t.url!, 'liveness')).status).toBe(200);
    expect(broken.body.error?.['operator']).toHaveProperty(
      'message',
      expect.stringContaining('greetingreconciler/'),
    );

    // the server heals: ready again
    env.server!.faults.clear();
    await waitFor(async () => (await probe(t.url!, 'readiness')).status === 200, { timeoutMs: 20_000 });

    // stopped
    await t.operator.stop();
    expect((await probe(t.url!, 'liveness')).status).toBe(503);
    expect((await probe(t.url!, 'readiness')).status).toBe(503);
  });

  it('reports a warm standby under leader election as live and ready but not leader', async () => {
    const leaseNamespace = await env.createNamespace('tosdk-lease');
    const app = (identity: string) =>
      createOperatorTestingModule({
        testEnvironment: env,
        http: true,
        imports: [
          FixtureAppModule.forRoot({
            operator: { leaderElection: { leaseName: 'fixture-app', leaseNamespace, identity } },
          }),
        ],
      });
    const leader = await app('first');
    try {
      await waitFor(() => leader.operator.runtimeInfo.isLeader());
      const standby = await app('second');
      try {
        const ready = await probe(standby.url!, 'readiness');
        expect(ready.status).toBe(200);
        expect(ready.body.info?.['operator']).toMatchObject({ started: true, leader: false });
        expect((await probe(standby.url!, 'liveness')).status).toBe(200);
      } finally {
        await standby.close();
      }
    } finally {
      await leader.close();
    }
  });
});
