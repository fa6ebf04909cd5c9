import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { register } from 'prom-client';
import { ResourceID, ResourceTypes, WATCH_CURRENT_NAMESPACE } from '@tosdk/core';
import { OperatorRegistry } from '@tosdk/nestjs';
import type { OperatorModuleOptions } from '@tosdk/nestjs';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { FixtureAppModule } from './fixtures/nest-app/app.module.js';
import { AuditLog } from './fixtures/nest-app/audit/audit-log.service.js';
import { Greeting, GREETING_CRD_PATH } from './fixtures/nest-app/greeting/greeting.resource.js';
import { ReconcileProbe } from './fixtures/nest-app/greeting/reconcile-probe.service.js';

const G = 'TOSDK_CONTROLLER_GREETINGRECONCILER_';

describe('[OP-05] @tosdk/nestjs configuration from options and environment, each with its effect', () => {
  let env: OperatorTestEnvironment;
  let t: OperatorTestingContext | undefined;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({ crds: [GREETING_CRD_PATH] });
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(async () => {
    await env?.stop();
  });

  const start = async (operator: OperatorModuleOptions, restrictToNamespace = true) => {
    t = await createOperatorTestingModule({
      testEnvironment: env,
      restrictToNamespace,
      imports: [FixtureAppModule.forRoot({ operator })],
    });
    return t;
  };
  const greeting = (namespace: string, name: string, labels?: Record<string, string>): Greeting => ({
    metadata: { name, namespace, labels },
    spec: { message: name },
  });
  const probeOf = (c: OperatorTestingContext) => c.module.get(ReconcileProbe);

  it('[OP-05] watches the namespaces of TOSDK_CONTROLLER_<NAME>_NAMESPACES over those of the options', async () => {
    const a = await env.createNamespace('tosdk-a');
    const b = await env.createNamespace('tosdk-b');
    const c = await start(
      { environment: { [`${G}NAMESPACES`]: b }, controllers: { greetingreconciler: { namespaces: [a] } } },
      false,
    );
    expect(
      c.module.get(OperatorRegistry).getController('greetingreconciler').configuration.namespaces,
    ).toEqual([b]);
    await c.adminClient.create(Greeting, greeting(a, 'in-a'));
    await c.adminClient.create(Greeting, greeting(b, 'in-b'));
    await c.waitForResource(ResourceTypes.ConfigMap, 'in-b', undefined, { namespace: b });
    expect(probeOf(c).attemptsOf('in-a')).toEqual([]);
  });

  it('[OP-05] watches the namespaces given in the options when the environment says nothing', async () => {
    const a = await env.createNamespace('tosdk-a');
    const c = await start(
      { environment: {}, controllers: { greetingreconciler: { namespaces: [a] } } },
      false,
    );
    await c.adminClient.create(Greeting, greeting(a, 'opt-a'));
    await c.waitForResource(ResourceTypes.ConfigMap, 'opt-a', undefined, { namespace: a });
  });

  it('[OP-05] reconciles only what TOSDK_CONTROLLER_<NAME>_LABEL_SELECTOR selects', async () => {
    const c = await start({ environment: { [`${G}LABEL_SELECTOR`]: 'tier=gold' } });
    await c.adminClient.create(Greeting, greeting(c.namespace, 'plain'));
    await c.adminClient.create(Greeting, greeting(c.namespace, 'gold', { tier: 'gold' }));
    await c.waitForResource(ResourceTypes.ConfigMap, 'gold');
    expect(probeOf(c).attemptsOf('plain')).toEqual([]);
  });

  it('[OP-05] adds the finalizer of the options, and the one of TOSDK_CONTROLLER_<NAME>_FINALIZER over it', async () => {
    let c = await start({
      controllers: { greetingreconciler: { finalizerName: 'fixtures.tosdk.io/from-options' } },
    });
    await c.adminClient.create(Greeting, greeting(c.namespace, 'fin'));
    let g = await c.waitForResource(Greeting, 'fin', (r) => (r.metadata?.finalizers ?? []).length > 0);
    expect(g.metadata?.finalizers).toEqual(['fixtures.tosdk.io/from-options']);
    await c.close();
    c = await start({
      environment: { [`${G}FINALIZER`]: 'fixtures.tosdk.io/from-env' },
      controllers: { greetingreconciler: { finalizerName: 'fixtures.tosdk.io/from-options' } },
    });
    await c.adminClient.create(Greeting, greeting(c.namespace, 'fin'));
    g = await c.waitForResource(Greeting, 'fin', (r) => (r.metadata?.finalizers ?? []).length > 0);
    expect(g.metadata?.finalizers).toEqual(['fixtures.tosdk.io/from-env']);
  });

  it('[OP-05] reconciles metadata-only changes with TOSDK_CONTROLLER_<NAME>_GENERATION_AWARE=false', async () => {
    const c = await start({ environment: { [`${G}GENERATION_AWARE`]: 'false' } });
    await c.adminClient.create(Greeting, greeting(c.namespace, 'meta'));
    await c.waitForResource(Greeting, 'meta', (r) => r.status?.configMap === 'meta');
    const before = probeOf(c).attemptsOf('meta').length;
    await c.adminClient.mergePatch(Greeting, new ResourceID('meta', c.namespace), {
      metadata: { labels: { touched: 'yes' } },
    });
    await waitFor(() => probeOf(c).attemptsOf('meta').length > before);
    expect(
      probeOf(c)
        .attemptsOf('meta')
        .every((a) => a.generation === 1),
    ).toBe(true);
  });

  it('[OP-05] retries as TOSDK_CONTROLLER_<NAME>_RETRY_* say (max attempts 1: the first retry is the last attempt)', async () => {
    const c = await start({
      environment: { [`${G}RETRY_MAX_ATTEMPTS`]: '1', [`${G}RETRY_INITIAL_INTERVAL`]: '10ms' },
    });
    await c.adminClient.create(Greeting, {
      ...greeting(c.namespace, 'failing'),
      spec: { message: 'x', fail: true },
    });
    await waitFor(() => probeOf(c).attemptsOf('failing').length >= 2);
    const [first, second] = probeOf(c).attemptsOf('failing');
    expect(first).toMatchObject({ retryAttempt: undefined, lastAttempt: false });
    expect(second).toMatchObject({ lastAttempt: true });
  });

  it('[OP-05] reconciles periodically with TOSDK_CONTROLLER_<NAME>_MAX_RECONCILIATION_INTERVAL', async () => {
    const c = await start({ environment: { [`${G}MAX_RECONCILIATION_INTERVAL`]: '50ms' } });
    await c.adminClient.create(Greeting, greeting(c.namespace, 'tick'));
    await waitFor(() => probeOf(c).attemptsOf('tick').length >= 4);
  });

  it('[OP-05] limits reconciliations with TOSDK_CONTROLLER_<NAME>_RATE_LIMIT', async () => {
    // the audit controller reconciles every 50 ms; the greeting one would too, but is limited to 2
    // executions an hour: the one adding its finalizer and one reconcile
    const c = await start({
      environment: {
        [`${G}MAX_RECONCILIATION_INTERVAL`]: '50ms',
        [`${G}RATE_LIMIT`]: '2/1h',
        TOSDK_CONTROLLER_AUDIT_MAX_RECONCILIATION_INTERVAL: '50ms',
      },
    });
    await c.adminClient.create(Greeting, greeting(c.namespace, 'limited'));
    const audit = c.module.get(AuditLog);
    await waitFor(() => (audit.reconciles.get(`${c.namespace}/limited`) ?? 0) >= 6);
    expect(probeOf(c).attemptsOf('limited')).toHaveLength(1);
  });

  it('[OP-05] writes the primary with the field manager of TOSDK_CONTROLLER_<NAME>_FIELD_MANAGER', async () => {
    const c = await start({ environment: { [`${G}FIELD_MANAGER`]: 'greeting-from-env' } });
    await c.adminClient.create(Greeting, greeting(c.namespace, 'fm'));
    const g = await c.waitForResource(Greeting, 'fm', (r) => r.status?.configMap === 'fm');
    expect(g.metadata?.managedFields?.map((m) => m.manager)).toContain('greeting-from-env');
  });

  it('[OP-05] runs one reconciliation at a time with TOSDK_CONCURRENT_RECONCILIATION_THREADS=1', async () => {
    const c = await start({ environment: { TOSDK_CONCURRENT_RECONCILIATION_THREADS: '1' } });
    const releaseA = probeOf(c).hold('one');
    const releaseB = probeOf(c).hold('two');
    await c.adminClient.create(Greeting, greeting(c.namespace, 'one'));
    await c.adminClient.create(Greeting, greeting(c.namespace, 'two'));
    const gauge = async (name: string) => (await register.getSingleMetric(name)!.get()).values[0]?.value;
    // one runs, the other waits in the executor's queue
    await waitFor(
      async () => (await gauge('tosdk_reconciliation_queue_size')) === 1 && probeOf(c).running === 1,
    );
    releaseA();
    releaseB();
    await c.waitForResource(ResourceTypes.ConfigMap, 'one');
    await c.waitForResource(ResourceTypes.ConfigMap, 'two');
    expect(probeOf(c).maxRunning).toBe(1);
  });

  it('[OP-05] lets a running reconciliation finish on shutdown within TOSDK_TERMINATION_TIMEOUT', async () => {
    const c = await start({ environment: { TOSDK_TERMINATION_TIMEOUT: '20s' } });
    const release = probeOf(c).hold('slow');
    await c.adminClient.create(Greeting, greeting(c.namespace, 'slow'));
    await waitFor(() => probeOf(c).running === 1);
    let closed = false;
    const closing = c.close().then(() => (closed = true));
    await waitFor(() => !c.operator.runtimeInfo.isStarted());
    expect(closed).toBe(false);
    release();
    await closing;
    expect(probeOf(c).finished).toContain('slow');
  });

  it('[OP-05] resolves WATCH_CURRENT_NAMESPACE to TOSDK_CURRENT_NAMESPACE', async () => {
    const ns = await env.createNamespace('tosdk-current');
    const c = await start(
      {
        environment: { TOSDK_CURRENT_NAMESPACE: ns },
        controllers: { greetingreconciler: { namespaces: [WATCH_CURRENT_NAMESPACE] } },
      },
      false,
    );
    expect(
      c.module.get(OperatorRegistry).getController('greetingreconciler').configuration.namespaces,
    ).toEqual([ns]);
    await c.adminClient.create(Greeting, greeting(ns, 'current'));
    await c.waitForResource(ResourceTypes.ConfigMap, 'current', undefined, { namespace: ns });
  });

  it('[OP-05] reconciles only what TOSDK_CONTROLLER_<NAME>_FIELD_SELECTOR selects', async () => {
    const c = await start({ environment: { [`${G}FIELD_SELECTOR`]: 'metadata.name=chosen' } });
    await c.adminClient.create(Greeting, greeting(c.namespace, 'ignored'));
    await c.adminClient.create(Greeting, greeting(c.namespace, 'chosen'));
    await c.waitForResource(ResourceTypes.ConfigMap, 'chosen');
    expect(probeOf(c).attemptsOf('ignored')).toEqual([]);
  });

  it('[OP-05] times a hanging reconcile out after TOSDK_CONTROLLER_<NAME>_RECONCILE_TIMEOUT and retries it', async () => {
    const c = await start({
      environment: { [`${G}RECONCILE_TIMEOUT`]: '100ms', [`${G}RETRY_INITIAL_INTERVAL`]: '10ms' },
    });
    const release = probeOf(c).hold('hanging');
    try {
      await c.adminClient.create(Greeting, greeting(c.namespace, 'hanging'));
      // still held, yet attempted again: the first attempt timed out and was retried
      await waitFor(() => probeOf(c).attemptsOf('hanging').length >= 2);
      expect(probeOf(c).attemptsOf('hanging')[1]).toMatchObject({ retryAttempt: expect.any(Number) });
    } finally {
      release();
    }
  });

  it('[OP-05] patches the primary without server-side apply when TOSDK_USE_SSA=false', async () => {
    const ops = async (useSsa: string) => {
      const c = await start({ environment: { TOSDK_USE_SSA: useSsa } });
      await c.adminClient.create(Greeting, greeting(c.namespace, 'ssa'));
      const g = await c.waitForResource(Greeting, 'ssa', (r) => r.status?.configMap === 'ssa');
      await c.close();
      return (g.metadata?.managedFields ?? [])
        .filter((m) => m.manager === 'greetingreconciler')
        .map((m) => m.operation);
    };
    expect(await ops('true')).toContain('Apply');
    expect(await ops('false')).not.toContain('Apply');
  });

  it('[OP-05] fails the bootstrap when caches do not fill within TOSDK_CACHE_SYNC_TIMEOUT', async () => {
    env.server!.faults.addLatency({ verb: 'list', resource: 'greetings', ms: 3_000 });
    try {
      await expect(start({ environment: { TOSDK_CACHE_SYNC_TIMEOUT: '200ms' } })).rejects.toMatchObject({
        code: 'OperatorBootstrap',
        cause: expect.objectContaining({ code: 'EventSourceStart' }),
      });
    } finally {
      env.server!.faults.clear();
    }
  });

  it('[OP-05] starts despite a failing informer with TOSDK_STOP_ON_INFORMER_ERROR_DURING_STARTUP=false, and catches up', async () => {
    env.server!.faults.failNext({ verb: 'list', resource: 'greetings', code: 500, times: 3 });
    const c = await start({ environment: { TOSDK_STOP_ON_INFORMER_ERROR_DURING_STARTUP: 'false' } });
    expect(c.operator.runtimeInfo.isStarted()).toBe(true);
    await c.adminClient.create(Greeting, greeting(c.namespace, 'late'));
    await c.waitForResource(ResourceTypes.ConfigMap, 'late', undefined, { timeoutMs: 20_000 });
  });
});
