import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubeConfigError, KubernetesClient, Operator, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { KubeConfigSource, RegisteredController } from '@tosdk/core';
import {
  InjectRegisteredController,
  KUBE_CONFIG,
  KubeConfigNotFoundError,
  OperatorModule,
  OperatorRegistry,
  Reconciler,
} from '../index.js';
import type { OperatorModuleOptions } from '../index.js';

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

@Injectable()
class UsesHandle {
  constructor(@InjectRegisteredController(MapsReconciler) readonly maps: RegisteredController) {}
}

@Injectable()
class UsesOperator {
  constructor(readonly operator: Operator) {}
}
@Module({ providers: [UsesOperator] })
class ConsumerModule {}

@Module({ providers: [MapsReconciler], exports: [MapsReconciler] })
class MapsModule {}
@Module({ imports: [MapsModule], providers: [MapsReconciler] })
class AlsoListsMaps {}

// @ts-expect-error -- no reconcile method: a type error at the decorator, and refused at bootstrap
@Reconciler({ resource: ResourceTypes.ConfigMap })
class NotAReconciler {}

@Injectable()
class OptionsFactory {
  createOperatorOptions(): OperatorModuleOptions {
    return offline({ controllers: { maps: { labelSelector: 'from=factory' } } });
  }
}

describe('OperatorModule', () => {
  it('is global by default, so any module injects the Operator; isGlobal: false keeps it to importers', async () => {
    const global = await Test.createTestingModule({
      imports: [OperatorModule.forRoot(offline()), ConsumerModule],
    }).compile();
    expect(global.get(UsesOperator).operator).toBe(global.get(Operator));
    await global.close();
    await expect(
      Test.createTestingModule({
        imports: [OperatorModule.forRoot({ ...offline(), isGlobal: false }), ConsumerModule],
      }).compile(),
    ).rejects.toThrow(/UsesOperator/);
  });

  it('refuses a reconciler class provided by two modules, naming both', async () => {
    const module = await Test.createTestingModule({
      imports: [OperatorModule.forRoot(offline()), MapsModule, AlsoListsMaps],
    }).compile();
    await expect(module.init()).rejects.toMatchObject({
      code: 'OperatorModuleConfiguration',
      message: expect.stringMatching(
        /MapsReconciler is a provider of both (MapsModule and AlsoListsMaps|AlsoListsMaps and MapsModule)/,
      ),
    });
  });

  it('hands out a reconciler controller handle after onModuleInit', async () => {
    const module = await Test.createTestingModule({
      imports: [OperatorModule.forRoot(offline()), MapsModule],
      providers: [UsesHandle],
    }).compile();
    const handle = module.get(UsesHandle).maps;
    expect(() => handle.name).toThrow(expect.objectContaining({ code: 'OperatorModuleConfiguration' }));
    await module.init();
    expect(module.get(OperatorRegistry).controllerNames()).toEqual(['maps']);
    expect(handle.name).toBe('maps');
    expect(handle.configuration.resourceType).toBe(ResourceTypes.ConfigMap);
    expect(module.get(Operator).runtimeInfo.isStarted()).toBe(false);
    await module.close();
  });

  it('takes options from forRootAsync with useClass', async () => {
    const module = await Test.createTestingModule({
      imports: [OperatorModule.forRootAsync({ useClass: OptionsFactory }), MapsModule],
    }).compile();
    await module.init();
    expect(module.get(OperatorRegistry).getController('maps').configuration.labelSelector).toBe(
      'from=factory',
    );
    await module.close();
  });

  it('refuses a @Reconciler provider without a reconcile method', async () => {
    const module = await Test.createTestingModule({
      imports: [OperatorModule.forRoot(offline())],
      providers: [NotAReconciler],
    }).compile();
    await expect(module.init()).rejects.toMatchObject({
      code: 'OperatorModuleConfiguration',
      message: expect.stringContaining('NotAReconciler'),
    });
  });

  it('injects the KubeConfig by the KUBE_CONFIG string token (independent of which client-node copy the app has)', async () => {
    @Injectable()
    class UsesKubeConfig {
      constructor(@Inject(KUBE_CONFIG) readonly kubeConfig: KubeConfig | null) {}
    }
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const module = await Test.createTestingModule({
      imports: [OperatorModule.forRoot({ kubeConfig, autoStart: false, readEnvironment: false })],
      providers: [UsesKubeConfig],
    }).compile();
    expect(typeof KUBE_CONFIG).toBe('string');
    expect(module.get(UsesKubeConfig).kubeConfig).toBe(kubeConfig);
    expect(module.get(KUBE_CONFIG)).toBe(module.get(KubeConfig));
    await module.close();
  });

  it('without kubeConfig or client it reads the configuration with core’s loadKubeConfig (no client-node KubeConfig, no class token); none found is a KubeConfigNotFoundError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tosdk-module-kc-'));
    const file = join(dir, 'config');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'ns' } }],
        'current-context': 'x',
      }),
    );
    const module = await Test.createTestingModule({
      imports: [OperatorModule.forRoot({ environment: { KUBECONFIG: file, HOME: dir }, autoStart: false })],
    }).compile();
    const kubeConfig = module.get<KubeConfigSource>(KUBE_CONFIG);
    expect(kubeConfig.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kubeConfig).not.toBeInstanceOf(KubeConfig);
    expect(() => module.get(KubeConfig)).toThrow();
    await module.close();
    const missing = await Test.createTestingModule({
      imports: [OperatorModule.forRoot({ environment: { HOME: dir }, autoStart: false })],
    })
      .compile()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(missing).toBeInstanceOf(KubeConfigNotFoundError);
    expect((missing as Error).message).toMatch(
      /KUBECONFIG.*pass kubeConfig or client to OperatorModule\.forRoot/s,
    );
    expect((missing as Error).cause).toBeInstanceOf(KubeConfigError);
  });
});
