import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module, Scope } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics } from 'prom-client';
import { defineResource, KubernetesClient, ResourceID, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { ControllerConfigurationOptions, KubernetesResource } from '@tosdk/core';
import { ConfigurationOverrider, OperatorModule, OperatorRegistry, Reconciler } from '../index.js';
import type { ControllerConfigurationOverrider } from '../index.js';
import { OperatorMetricsModule } from '../metrics/index.js';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '../testing/index.js';

/** A dependency of a reconciler that releases what it holds when its module is destroyed (a pool). */
@Injectable()
class Store implements OnModuleDestroy {
  open = true;
  onModuleDestroy(): void {
    this.open = false;
  }
  write(): string {
    if (!this.open) throw new Error('store is closed');
    return 'written';
  }
}

const gate: { entered: boolean; release?: () => void; outcome?: string } = { entered: false };

@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'stored', labelSelector: 'review=s13-shutdown' })
class StoredReconciler {
  constructor(private readonly store: Store) {}
  async reconcile() {
    gate.entered = true;
    await new Promise<void>((resolve) => (gate.release = resolve));
    try {
      gate.outcome = this.store.write();
    } catch (error) {
      gate.outcome = (error as Error).message;
    }
    return UpdateControl.noUpdate();
  }
}
@Module({ providers: [Store, StoredReconciler] })
class StoredModule {}

/** Names of the ConfigMaps each implementation reconciled. */
const reconciled: string[] = [];

@Reconciler({ resource: ResourceTypes.ConfigMap, labelSelector: 'review=s13-stub' })
class PagesReconciler {
  reconcile(map: KubernetesResource) {
    reconciled.push(`real ${map.metadata!.name}`);
    return UpdateControl.noUpdate();
  }
}
@Module({ providers: [PagesReconciler] })
class PagesModule {}

@Injectable()
class Settings {
  readonly selector = 'review=s13-transient';
}
@ConfigurationOverrider()
@Injectable({ scope: Scope.TRANSIENT })
class TransientSelector implements ControllerConfigurationOverrider {
  constructor(private readonly settings: Settings) {}
  overrideController(_name: string, options: ControllerConfigurationOptions<KubernetesResource>) {
    return { ...options, labelSelector: this.settings.selector };
  }
}

/** A kind whose CRD is never applied. */
const Uninstalled = defineResource<KubernetesResource>({
  group: 'review-s13.tosdk.io',
  version: 'v1',
  kind: 'Uninstalled',
});
@Reconciler({ resource: Uninstalled })
class UninstalledReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

/**
 * What `@willsoto/nestjs-prometheus`'s `PrometheusModule.registerAsync()` does while its providers are
 * made: its PROM_CLIENT factory calls configureServer, which calls prom-client's collectDefaultMetrics()
 * without asking whether they are registered.
 */
@Module({
  providers: [
    {
      provide: 'PROM_CLIENT',
      useFactory: () => {
        collectDefaultMetrics();
        return true;
      },
    },
  ],
})
class LikePrometheusModuleRegisterAsync {}

/** Writes a ConfigMap with the operator's client when its module is destroyed (a shutdown marker). */
@Injectable()
class ShutdownMarker implements OnModuleDestroy {
  namespace = '';
  failure: string | undefined;
  constructor(private readonly client: KubernetesClient) {}
  async onModuleDestroy(): Promise<void> {
    try {
      await this.client.create(ResourceTypes.ConfigMap, {
        metadata: { name: 'stopped', namespace: this.namespace },
      });
    } catch (error) {
      this.failure = (error as Error).message;
    }
  }
}

/** A kind whose CRD a test lists in `crds`, on an environment it shares with other tests. */
const Listed = defineResource<KubernetesResource>({
  group: 'review-s13.tosdk.io',
  version: 'v1',
  kind: 'Listed',
});
const listedCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'listeds.review-s13.tosdk.io' },
  spec: {
    group: 'review-s13.tosdk.io',
    scope: 'Namespaced',
    names: { plural: 'listeds', singular: 'listed', kind: 'Listed', listKind: 'ListedList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const listedSeen: string[] = [];
@Reconciler({ resource: Listed })
class ListedReconciler {
  reconcile(listed: KubernetesResource) {
    listedSeen.push(listed.metadata!.name!);
    return UpdateControl.noUpdate();
  }
}

describe('review S13: @tosdk/nestjs', () => {
  let environment: OperatorTestEnvironment;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
  });
  afterAll(async () => {
    await environment?.stop();
  });

  it('[FINDING S13-NE1] app.close() stops the operator before the reconcilers’ dependencies are destroyed: an in-flight reconcile still uses them', async () => {
    const t = await createOperatorTestingModule({
      // running reconciliations get 10 s to finish at a stop (core's default is none)
      imports: [
        OperatorModule.forRoot({ readEnvironment: false, terminationTimeoutMs: 10_000 }),
        StoredModule,
      ],
      testEnvironment: environment,
    });
    const store = t.module.get(Store);
    try {
      await t.adminClient.create(ResourceTypes.ConfigMap, {
        metadata: { name: 'in-flight', namespace: t.namespace, labels: { review: 's13-shutdown' } },
      });
      await waitFor(() => gate.entered, { description: 'the reconcile to start' });
    } finally {
      const closing = t.close();
      // let the reconcile go on once the shutdown has got either far: the operator stopping, or the
      // reconciler's dependency destroyed
      await waitFor(() => !t.operator.runtimeInfo.isStarted() || !store.open, {
        description: 'the shutdown to begin',
      });
      gate.release?.();
      await closing;
    }
    // Spring destroys the Operator bean (destroyMethod stop) before the beans its reconcilers use
    expect(gate.outcome).toBe('written');
  });

  it('[FINDING S13-NE2] waitFor whose check never settles rejects at its timeout naming what it waited for, instead of hanging until the test runner kills the test', async () => {
    const outcome = await Promise.race([
      waitFor(() => new Promise<boolean>(() => undefined), {
        timeoutMs: 300,
        description: 'the hanging check',
      }).then(
        () => 'resolved',
        (error: unknown) => (error as Error).message,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('still pending after 5 s'), 5_000).unref()),
    ]);
    // Awaitility's atMost bounds a condition that blocks (ConditionAwaiter waits on its latch, not on the poll)
    expect(outcome).toMatch(
      /^the hanging check did not hold within 300 ms; last error: the last check had not settled/,
    );
  });

  it('[FINDING S13-NE3] a test that replaces a reconciler with overrideProvider(...).useValue(stub) runs the stub as that controller, instead of silently dropping the controller', async () => {
    const t = await createOperatorTestingModule({
      imports: [OperatorModule.forRoot({ readEnvironment: false }), PagesModule],
      testEnvironment: environment,
      configure: (builder) =>
        builder.overrideProvider(PagesReconciler).useValue({
          reconcile: (map: KubernetesResource) => {
            reconciled.push(`stub ${map.metadata!.name}`);
            return UpdateControl.noUpdate();
          },
        }),
    });
    try {
      // the controller keeps the name and options of the class it stands in for
      expect(t.module.get(OperatorRegistry).controllerNames()).toEqual(['pagesreconciler']);
      await t.adminClient.create(ResourceTypes.ConfigMap, {
        metadata: { name: 'stubbed', namespace: t.namespace, labels: { review: 's13-stub' } },
      });
      await waitFor(() => reconciled.length > 0, {
        description: () => `a reconcile of ConfigMap ${t.namespace}/stubbed`,
      });
      expect(reconciled).toEqual(['stub stubbed']);
    } finally {
      await t.close();
    }
  });

  it('[FINDING S13-NE4] a transient @ConfigurationOverrider fails the bootstrap naming it, instead of a TypeError from an instance whose constructor never ran', async () => {
    @Module({ providers: [Settings, TransientSelector, PagesReconciler] })
    class TransientModule {}
    await expect(
      createOperatorTestingModule({
        imports: [OperatorModule.forRoot({ readEnvironment: false }), TransientModule],
        testEnvironment: environment,
      }),
    ).rejects.toMatchObject({
      code: 'OperatorModuleConfiguration',
      message: expect.stringMatching(
        /^@ConfigurationOverrider TransientSelector is transient: .*make it a singleton/,
      ),
    });
  });

  it('[FINDING S13-NE5] a bootstrap that fails because the primary kind’s CRD is not installed says to apply it, not to check reachability and RBAC', async () => {
    const failure = await createOperatorTestingModule({
      imports: [OperatorModule.forRoot({ readEnvironment: false })],
      providers: [UninstalledReconciler],
      testEnvironment: environment,
    }).then(
      async (t) => {
        await t.close();
        return new Error('started');
      },
      (error: unknown) => error as Error,
    );
    expect(failure).toMatchObject({ code: 'OperatorBootstrap', cause: { code: 'EventSourceStart' } });
    // core's own text already names the CRD; the fix Nest's bootstrap error adds must agree with it
    expect(failure.message).toMatch(/To fix: apply the CustomResourceDefinition/);
    expect(failure.message).not.toMatch(/To fix: check that the API server is reachable/);
  });

  it('[FINDING S13-NE6] an app importing OperatorMetricsModule before @willsoto/nestjs-prometheus’s registerAsync() starts (both metrics in one registry), instead of failing with "process_cpu_user_seconds_total has already been registered"', async () => {
    const t = await createOperatorTestingModule({
      imports: [
        OperatorModule.forRoot({ readEnvironment: false }),
        OperatorMetricsModule.forRoot(),
        LikePrometheusModuleRegisterAsync,
      ],
      testEnvironment: environment,
      http: true,
    });
    try {
      const scrape = await fetch(`${t.url}/metrics`);
      expect(scrape.status).toBe(200);
      const body = await scrape.text();
      expect(body.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
      expect(body).toMatch(/^# TYPE tosdk_reconciliations_started_total /m);
    } finally {
      await t.close();
    }
  });

  it('guard (S13-NE1): a provider’s onModuleDestroy still writes with the injected KubernetesClient after the operator stopped', async () => {
    const t = await createOperatorTestingModule({
      imports: [OperatorModule.forRoot({ readEnvironment: false })],
      providers: [ShutdownMarker, PagesReconciler],
      testEnvironment: environment,
    });
    const marker = t.module.get(ShutdownMarker);
    // the namespace outlives close() here: the test deletes it
    const namespace = await environment.createNamespace('s13-marker');
    marker.namespace = namespace;
    await t.close();
    expect(marker.failure).toBeUndefined();
    expect(
      await environment.adminClient.get(ResourceTypes.ConfigMap, new ResourceID('stopped', namespace)),
    ).toBeDefined();
    await environment.deleteNamespace(namespace);
  });

  it('[FINDING S13-NE7] createOperatorTestingModule applies its crds to a shared testEnvironment too, instead of ignoring them and failing the start on a missing CRD', async () => {
    const t = await createOperatorTestingModule({
      imports: [OperatorModule.forRoot({ readEnvironment: false })],
      providers: [ListedReconciler],
      crds: [listedCrd],
      testEnvironment: environment,
    });
    try {
      await t.adminClient.create(Listed, { metadata: { name: 'one', namespace: t.namespace } });
      await waitFor(() => listedSeen.includes('one'), {
        description: () => `a reconcile of Listed ${t.namespace}/one`,
      });
    } finally {
      await t.close();
    }
  });

  it('[FINDING S13-NE8] OperatorModule.forRoot imported twice fails the bootstrap naming the importers, instead of two operators reconciling every resource twice', async () => {
    @Module({ imports: [OperatorModule.forRoot({ readEnvironment: false })], providers: [PagesReconciler] })
    class PagesAppModule {}
    const started = await createOperatorTestingModule({
      imports: [PagesAppModule],
      // the testing module's own forRoot: a second OperatorModule beside the app's
      operator: { readEnvironment: false, concurrentReconciliationThreads: 1 },
      testEnvironment: environment,
    }).then(
      async (t) => {
        await t.close();
        return new Error('started with two OperatorModules');
      },
      (error: unknown) => error as Error,
    );
    // Spring has one Operator bean (OperatorAutoConfiguration: @ConditionalOnMissingBean(Operator.class))
    expect(started).toMatchObject({
      code: 'OperatorModuleConfiguration',
      message: expect.stringMatching(/^OperatorModule is imported 2 times \(by /),
    });
    // the modules whose @Module imports list it, whatever their order
    expect(started.message).toMatch(/\(by (PagesAppModule, RootTestModule|RootTestModule, PagesAppModule);/);
  });

  it('guard (S13-NE8): one forRoot() module object imported by two modules is one OperatorModule and starts', async () => {
    const operatorModule = OperatorModule.forRoot({ readEnvironment: false });
    @Module({ imports: [operatorModule], providers: [PagesReconciler] })
    class FeatureModule {}
    const t = await createOperatorTestingModule({
      imports: [operatorModule, FeatureModule],
      testEnvironment: environment,
    });
    try {
      expect(t.module.get(OperatorRegistry).controllerNames()).toEqual(['pagesreconciler']);
    } finally {
      await t.close();
    }
  });

  it('guard (S13-NE1): closing the later of two test apps that share a useValue object with onModuleDestroy leaves the earlier app’s operator running', async () => {
    const shared = { destroyed: 0, onModuleDestroy: () => void shared.destroyed++ };
    const open = () =>
      createOperatorTestingModule({
        imports: [OperatorModule.forRoot({ readEnvironment: false })],
        providers: [PagesReconciler, { provide: 'SHARED', useValue: shared }],
        testEnvironment: environment,
      });
    const a = await open();
    const b = await open();
    try {
      // the object was first seen by a's operator; b closes first
      await b.close();
      expect(shared.destroyed).toBe(1);
      expect(a.operator.runtimeInfo.isStarted()).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
