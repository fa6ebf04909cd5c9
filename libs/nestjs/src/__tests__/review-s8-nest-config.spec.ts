import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { Injectable, Module, Scope } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { TestingModule } from '@nestjs/testing';
import { KubernetesClient, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { ControllerConfigurationOptions, KubernetesResource } from '@tosdk/core';
import {
  ConfigurationOverrider,
  OperatorMetricsSink,
  OperatorModule,
  OperatorRegistry,
  Reconciler,
} from '../index.js';
import type { ControllerConfigurationOverrider, OperatorModuleOptions } from '../index.js';
import { CapturingLogger } from './support/capturing-logger.js';

function offlineClient(): KubernetesClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return KubernetesClient.fromKubeConfig(kc);
}
const offline = (extra: OperatorModuleOptions = {}): OperatorModuleOptions => ({
  client: offlineClient(),
  autoStart: false,
  readEnvironment: false,
  ...extra,
});

@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'maps' })
class MapsReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'maps', finalizerName: 'not a finalizer' })
class BadFinalizerReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

@Reconciler({ resource: ResourceTypes.Secret, name: 'secrets' })
class SecretsReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

async function compile(
  operator: ReturnType<typeof OperatorModule.forRoot>,
  providers: unknown[],
): Promise<{ module: TestingModule; logger: CapturingLogger }> {
  const module = await Test.createTestingModule({
    imports: [operator],
    providers: providers as never[],
  }).compile();
  const logger = new CapturingLogger();
  module.useLogger(logger);
  return { module, logger };
}

describe('review S8: OperatorModule configuration', () => {
  it('[FINDING S8-NE2] forRootAsync whose factory returns nothing fails with a message naming forRootAsync and what to return', async () => {
    // a factory that forgot its return (or a ConfigService.get of a missing key)
    const module = Test.createTestingModule({
      imports: [
        OperatorModule.forRootAsync({
          useFactory: () => undefined as unknown as OperatorModuleOptions,
        }),
      ],
    }).compile();
    // today: TypeError "Cannot read properties of undefined (reading 'readEnvironment')"
    await expect(module).rejects.toMatchObject({ code: 'OperatorModuleConfiguration' });
    await expect(module).rejects.toThrow(/forRootAsync/);
  });

  it('[FINDING S8-NE3] a forRoot controllers key that names no controller is reported (as a TOSDK_CONTROLLER_* variable is), not silently ignored', async () => {
    // the user keyed the override by the class, not by the controller's name ('maps')
    const { module, logger } = await compile(
      OperatorModule.forRoot(offline({ controllers: { mapsreconciler: { labelSelector: 'team=a' } } })),
      [MapsReconciler],
    );
    await module.init();
    const registry = module.get(OperatorRegistry);
    // the override had no effect: the controller still watches every ConfigMap
    expect(registry.getController('maps').configuration.labelSelector).toBeUndefined();
    await module.close();
    expect(logger.warnings().some((w) => w.includes('mapsreconciler'))).toBe(true);
  });

  it('guard: a TOSDK_CONTROLLER_* variable that names no controller is warned about', async () => {
    const { module, logger } = await compile(
      OperatorModule.forRoot(
        offline({
          readEnvironment: true,
          environment: { TOSDK_CONTROLLER_MAPSRECONCILER_LABEL_SELECTOR: 'team=a' },
        }),
      ),
      [MapsReconciler],
    );
    await module.init();
    await module.close();
    expect(logger.warnings().some((w) => w.includes('TOSDK_CONTROLLER_MAPSRECONCILER_LABEL_SELECTOR'))).toBe(
      true,
    );
  });

  it('[FINDING S8-NE4] a @Reconciler option core refuses (finalizerName) fails the bootstrap naming the reconciler class', async () => {
    const { module } = await compile(OperatorModule.forRoot(offline()), [
      SecretsReconciler,
      BadFinalizerReconciler,
    ]);
    const failure = module.init();
    // today: 'finalizerName "not a finalizer" is not a valid qualified name ...' with no class or controller
    await expect(failure).rejects.toThrow(/finalizerName/);
    await expect(failure).rejects.toThrow(/BadFinalizerReconciler/);
    await module.close().catch(() => undefined);
  });

  it('[FINDING S8-NE5] a TOSDK_CONTROLLER_<NAME>_NAMESPACES value that is no namespace name fails with an EnvironmentConfigurationError naming the variable', async () => {
    const { module } = await compile(
      OperatorModule.forRoot(
        offline({
          readEnvironment: true,
          environment: { TOSDK_CONTROLLER_MAPS_NAMESPACES: 'team_a,Team-B' },
        }),
      ),
      [MapsReconciler],
    );
    const failure = module.init();
    // today: InvalidControllerConfigurationError 'namespaces: namespace "team_a" is not a valid ...'
    await expect(failure).rejects.toMatchObject({
      code: 'InvalidEnvironmentConfiguration',
      variable: 'TOSDK_CONTROLLER_MAPS_NAMESPACES',
    });
    await module.close().catch(() => undefined);
  });

  it('guard: a TOSDK_* integer with a bad value fails the bootstrap naming the variable', async () => {
    const module = Test.createTestingModule({
      imports: [
        OperatorModule.forRoot(
          offline({
            readEnvironment: true,
            environment: { TOSDK_CONCURRENT_RECONCILIATION_THREADS: '10.5' },
          }),
        ),
      ],
    }).compile();
    await expect(module).rejects.toMatchObject({
      code: 'InvalidEnvironmentConfiguration',
      variable: 'TOSDK_CONCURRENT_RECONCILIATION_THREADS',
    });
  });

  it('guard: precedence decorator < controllers option < environment < overrider', async () => {
    @ConfigurationOverrider()
    class FieldManagerOverrider implements ControllerConfigurationOverrider {
      overrideController(
        _name: string,
        options: ControllerConfigurationOptions<KubernetesResource>,
      ): ControllerConfigurationOptions<KubernetesResource> {
        return { ...options, fieldManager: 'from-overrider' };
      }
    }
    @Module({ providers: [MapsReconciler, FieldManagerOverrider] })
    class FeatureModule {}
    const module = await Test.createTestingModule({
      imports: [
        OperatorModule.forRoot(
          offline({
            readEnvironment: true,
            controllers: {
              maps: { labelSelector: 'from=options', fieldManager: 'from-options', finalizerName: 'a.io/f' },
            },
            environment: {
              TOSDK_CONTROLLER_MAPS_LABEL_SELECTOR: 'from=env',
              TOSDK_CONTROLLER_MAPS_FIELD_MANAGER: 'from-env',
            },
          }),
        ),
        FeatureModule,
      ],
    }).compile();
    await module.init();
    const c = module.get(OperatorRegistry).getController('maps').configuration;
    expect(c.finalizerName).toBe('a.io/f');
    expect(c.labelSelector).toBe('from=env');
    expect(c.fieldManager).toBe('from-overrider');
    await module.close();
  });

  it('[FINDING S8-NE1] overriders run by ascending order, not by discovery order', async () => {
    @ConfigurationOverrider({ order: 10 })
    class Late implements ControllerConfigurationOverrider {
      overrideController(
        _name: string,
        options: ControllerConfigurationOptions<KubernetesResource>,
      ): ControllerConfigurationOptions<KubernetesResource> {
        return { ...options, fieldManager: `${options.fieldManager ?? ''}late` };
      }
    }
    @ConfigurationOverrider({ order: -1 })
    class Early implements ControllerConfigurationOverrider {
      overrideController(
        _name: string,
        options: ControllerConfigurationOptions<KubernetesResource>,
      ): ControllerConfigurationOptions<KubernetesResource> {
        return { ...options, fieldManager: 'early-' };
      }
    }
    // discovered Late first, Early second
    const { module } = await compile(OperatorModule.forRoot(offline()), [MapsReconciler, Late, Early]);
    await module.init();
    expect(module.get(OperatorRegistry).getController('maps').configuration.fieldManager).toBe('early-late');
    await module.close();
  });

  it('[FINDING S8-NE10] a request-scoped @ConfigurationOverrider is refused with a message, not silently skipped', async () => {
    @Injectable({ scope: Scope.REQUEST })
    @ConfigurationOverrider()
    class TenantSelector implements ControllerConfigurationOverrider {
      overrideController(
        _name: string,
        options: ControllerConfigurationOptions<KubernetesResource>,
      ): ControllerConfigurationOptions<KubernetesResource> {
        return { ...options, labelSelector: 'tenant=a' };
      }
    }
    const { module } = await compile(OperatorModule.forRoot(offline()), [MapsReconciler, TenantSelector]);
    const outcome = await module.init().then(
      () => undefined,
      (error: unknown) => error,
    );
    const applied = outcome
      ? undefined
      : module.get(OperatorRegistry).getController('maps').configuration.labelSelector;
    await module.close().catch(() => undefined);
    // today: init succeeds, the overrider is never called, and the controller watches every tenant
    expect(applied).toBeUndefined();
    expect(outcome).toMatchObject({
      code: 'OperatorModuleConfiguration',
      message: expect.stringMatching(/TenantSelector/),
    });
  });

  it('[FINDING S8-NE10] a request-scoped @OperatorMetricsSink is refused with a message naming it', async () => {
    @Injectable({ scope: Scope.REQUEST })
    @OperatorMetricsSink()
    class PerTenantMetrics {
      reconciliationStarted(): void {}
    }
    const { module } = await compile(OperatorModule.forRoot(offline()), [MapsReconciler, PerTenantMetrics]);
    await expect(module.init()).rejects.toMatchObject({
      code: 'OperatorModuleConfiguration',
      message: expect.stringMatching(/@OperatorMetricsSink PerTenantMetrics is request-scoped/),
    });
    await module.close().catch(() => undefined);
  });
});
