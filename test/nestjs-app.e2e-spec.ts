import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from 'nestjs-pino';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import { OperatorRegistry } from '@tosdk/nestjs';
import { createOperatorTestingModule, waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { FixtureAppModule } from './fixtures/nest-app/app.module.js';
import { AuditLog } from './fixtures/nest-app/audit/audit-log.service.js';
import { NamespaceSwitcher } from './fixtures/nest-app/audit/namespace-switcher.service.js';
import { Greeting, GREETING_CRD_PATH } from './fixtures/nest-app/greeting/greeting.resource.js';
import { ReconcileProbe } from './fixtures/nest-app/greeting/reconcile-probe.service.js';
import { logCapture } from './fixtures/nest-app/log-capture.js';

describe('@tosdk/nestjs: the example app under test', () => {
  let t: OperatorTestingContext;

  beforeAll(async () => {
    t = await createOperatorTestingModule({
      imports: [FixtureAppModule.forRoot()],
      crds: [GREETING_CRD_PATH],
      http: true,
      configureApp: (app) => app.useLogger(app.get(Logger)),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const greeting = (name: string, message: string, extra: Partial<Greeting['spec']> = {}): Greeting => ({
    apiVersion: Greeting.apiVersion,
    kind: Greeting.kind,
    metadata: { name, namespace: t.namespace },
    spec: { message, ...extra },
  });

  it('discovers reconcilers in both feature modules and injects their dependencies', async () => {
    expect(t.module.get(OperatorRegistry).controllerNames().sort()).toEqual(['audit', 'greetingreconciler']);
    await t.adminClient.create(Greeting, greeting('hello', 'world'));
    const cm = await t.waitForResource(ResourceTypes.ConfigMap, 'hello');
    // GreetingFormatter, injected into the reconciler, rendered the message
    expect(cm.data).toEqual({ message: 'Hello, world!' });
    const g = await t.waitForResource(Greeting, 'hello', (r) => r.status?.configMap === 'hello');
    expect(g.metadata?.finalizers).toEqual(['greetings.fixtures.tosdk.io/finalizer']);
    // the second module's reconciler saw the ConfigMap, recorded in its injected AuditLog
    await waitFor(() => t.module.get(AuditLog).seen.has(`${t.namespace}/hello`));
  });

  it('serves readiness and liveness over HTTP while running', async () => {
    const ready = await fetch(`${t.url}/health/readiness`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; info: Record<string, { controllers: string[] }> };
    expect(body.status).toBe('ok');
    expect(body.info['operator'].controllers.sort()).toEqual(['audit', 'greetingreconciler']);
    expect((await fetch(`${t.url}/health/liveness`)).status).toBe(200);
  });

  it('serves /metrics with the reconciliation counters labelled by controller and kind', async () => {
    await t.adminClient.create(Greeting, greeting('broken', 'x', { fail: true }));
    await waitFor(() => t.module.get(ReconcileProbe).attemptsOf('broken').length >= 2);
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const labels = 'controller="greetingreconciler",group="fixtures.tosdk.io",version="v1",kind="Greeting"';
    const value = (metric: string, extra = '') => {
      const line = text.split('\n').find((l) => l.startsWith(`${metric}{${labels}${extra}}`));
      return line === undefined ? undefined : Number(line.split(' ').pop());
    };
    expect(value('tosdk_reconciliations_started_total')).toBeGreaterThanOrEqual(3);
    expect(value('tosdk_reconciliations_succeeded_total')).toBeGreaterThanOrEqual(1);
    expect(value('tosdk_reconciliations_failed_total', ',error="Error"')).toBeGreaterThanOrEqual(1);
    expect(value('tosdk_reconciliation_retries_total')).toBeGreaterThanOrEqual(1);
    expect(value('tosdk_events_received_total')).toBeGreaterThanOrEqual(2);
    expect(value('tosdk_reconciliation_duration_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^tosdk_reconciliations_in_flight \d+$/m);
    expect(text).toMatch(/^tosdk_reconciliation_queue_size \d+$/m);
    // no per-resource labels unless asked for
    expect(text).not.toMatch(/tosdk_reconciliations_started_total\{[^}]*name=/);
  });

  it('counts cleanups and their durations after a delete', async () => {
    await t.adminClient.create(Greeting, greeting('bye', 'soon'));
    await t.waitForResource(Greeting, 'bye', (r) => r.status?.configMap === 'bye');
    await t.adminClient.delete(Greeting, new ResourceID('bye', t.namespace));
    await t.waitForDeletion(Greeting, 'bye');
    expect(t.module.get(ReconcileProbe).cleanups).toContain('bye');
    // cleanupDone comes with the delete event, which the operator may see after the test client
    const cleanups = /^tosdk_cleanups_total\{controller="greetingreconciler"[^}]*\} [1-9]/m;
    let text = '';
    for (let i = 0; i < 500 && !cleanups.test(text); i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      text = await (await fetch(`${t.url}/metrics`)).text();
    }
    expect(text).toMatch(cleanups);
    expect(text).toMatch(
      /^tosdk_cleanup_duration_seconds_count\{controller="greetingreconciler"[^}]*\} [1-9]/m,
    );
  });

  it('writes every log line of a reconcile with the resource context and the controller', async () => {
    const g = await t.waitForResource(Greeting, 'hello', (r) => r.status?.configMap === 'hello');
    const lines = logCapture.lines.filter((l) => l['resource.name'] === 'hello');
    const byUser = lines.find((l) => l['msg'] === 'reconciling greeting' && l['user'] === 'pino');
    const byNest = lines.find((l) => l['msg'] === 'reconciling greeting through the Nest logger');
    for (const line of [byUser, byNest]) {
      expect(line).toMatchObject({
        'resource.apiVersion': 'fixtures.tosdk.io/v1',
        'resource.kind': 'Greeting',
        'resource.name': 'hello',
        'resource.namespace': t.namespace,
        'resource.uid': g.metadata!.uid,
        'resource.generation': 1,
        controller: 'greetingreconciler',
      });
      expect(typeof line!['resource.resourceVersion']).toBe('string');
    }
    // PinoLogger.assign works inside a reconcile, and its fields stay with that reconciliation
    const assigned = lines.find((l) => l['msg'] === 'fields assigned');
    expect(assigned).toMatchObject({
      greeting: 'hello',
      'resource.name': 'hello',
      controller: 'greetingreconciler',
    });
    const firstOfBroken = logCapture.lines.find(
      (l) => l['msg'] === 'reconciling greeting' && l['resource.name'] === 'broken',
    );
    expect(firstOfBroken).toBeDefined();
    expect(firstOfBroken).not.toHaveProperty('greeting');
    // the framework's own lines inside a reconciliation carry it too (the failing one logs its error)
    const framework = logCapture.lines.find(
      (l) => l['context'] === 'tosdk' && l['resource.name'] === 'broken',
    );
    expect(framework).toMatchObject({ controller: 'greetingreconciler', 'resource.kind': 'Greeting' });
    // and lines outside a reconciliation do not
    expect(logCapture.lines.find((l) => l['msg'] === 'operator started')).not.toHaveProperty('resource.name');
  });

  it('injects RegisteredController handles that change watched namespaces at run time', async () => {
    const switcher = t.module.get(NamespaceSwitcher);
    expect(switcher.greetings.configuration.namespaces).toEqual([t.namespace]);
    const other = await t.environment.createNamespace('tosdk-other');
    await t.adminClient.create(Greeting, {
      ...greeting('elsewhere', 'there'),
      metadata: { name: 'elsewhere', namespace: other },
    });
    await switcher.watch([t.namespace, other]);
    await t.waitForResource(ResourceTypes.ConfigMap, 'elsewhere', undefined, { namespace: other });
    expect(switcher.greetings.configuration.namespaces).toEqual([t.namespace, other].sort());
  });
});
