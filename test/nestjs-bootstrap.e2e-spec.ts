import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module, Scope } from '@nestjs/common';
import type { LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubeApiServer } from '@tosdk/apiserver';
import { defineResource, KubernetesClient, Operator, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { ControllerConfigurationOptions, KubernetesResource } from '@tosdk/core';
import {
  ConfigurationOverrider,
  KUBE_CONFIG,
  OperatorModule,
  OperatorRegistry,
  Reconciler,
} from '@tosdk/nestjs';
import type { ControllerConfigurationOverrider, OperatorModuleOptions } from '@tosdk/nestjs';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import { FixtureAppModule, fixtureLoggerModule } from './fixtures/nest-app/app.module.js';
import { GreetingModule } from './fixtures/nest-app/greeting/greeting.module.js';
import { Greeting, GREETING_CRD_PATH } from './fixtures/nest-app/greeting/greeting.resource.js';
import { ReconcileProbe } from './fixtures/nest-app/greeting/reconcile-probe.service.js';

class CollectingLogger implements LoggerService {
  readonly lines: Array<{ level: string; message: unknown; context?: unknown }> = [];
  log(message: unknown, context?: unknown) {
    this.lines.push({ level: 'log', message, context });
  }
  warn(message: unknown, context?: unknown) {
    this.lines.push({ level: 'warn', message, context });
  }
  error(message: unknown, context?: unknown) {
    this.lines.push({ level: 'error', message, context });
  }
}

const greeting = (namespace: string, name: string, labels?: Record<string, string>): Greeting => ({
  metadata: { name, namespace, labels },
  spec: { message: name },
});

describe('@tosdk/nestjs bootstrap: clients, failures that say what to fix, async options, overriders', () => {
  let env: OperatorTestEnvironment;
  let dir: string;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({ crds: [GREETING_CRD_PATH] });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-nest-'));
  });
  afterAll(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const withFixture = (operator: OperatorModuleOptions) =>
    createOperatorTestingModule({ testEnvironment: env, imports: [FixtureAppModule.forRoot({ operator })] });

  it('[OP-05] fails the bootstrap with a typed error naming a bad TOSDK_* variable', async () => {
    await expect(
      withFixture({ environment: { TOSDK_CONCURRENT_RECONCILIATION_THREADS: 'many' } }),
    ).rejects.toMatchObject({
      code: 'InvalidEnvironmentConfiguration',
      variable: 'TOSDK_CONCURRENT_RECONCILIATION_THREADS',
    });
    await expect(
      withFixture({ environment: { TOSDK_CONTROLLER_GREETINGRECONCILER_RATE_LIMIT: 'fast' } }),
    ).rejects.toMatchObject({
      code: 'InvalidEnvironmentConfiguration',
      variable: 'TOSDK_CONTROLLER_GREETINGRECONCILER_RATE_LIMIT',
      message: expect.stringContaining('5/10s'),
    });
  });

  it('[OP-05] reads process.env by default', async () => {
    process.env['TOSDK_CONTROLLER_GREETINGRECONCILER_GENERATION_AWARE'] = 'maybe';
    try {
      await expect(withFixture({})).rejects.toMatchObject({
        variable: 'TOSDK_CONTROLLER_GREETINGRECONCILER_GENERATION_AWARE',
      });
    } finally {
      delete process.env['TOSDK_CONTROLLER_GREETINGRECONCILER_GENERATION_AWARE'];
    }
  });

  it('uses the client the app gives and never reads a kubeconfig then', async () => {
    const client = KubernetesClient.fromKubeConfig(env.kubeConfig);
    const environment = { KUBECONFIG: join(dir, 'does-not-exist'), HOME: dir };
    const module = await Test.createTestingModule({
      imports: [OperatorModule.forRoot({ client, environment, autoStart: false })],
    }).compile();
    await module.init();
    expect(module.get(KUBE_CONFIG)).toBeNull();
    expect(module.get(KubernetesClient)).toBe(client);
    expect(module.get(Operator).client).toBe(client);
    await module.close();
    expect(client.isClosed).toBe(false);
    client.close();
    // without a client the same environment has no kubeconfig to offer: a clear error
    await expect(
      Test.createTestingModule({
        imports: [OperatorModule.forRoot({ environment, autoStart: false })],
      }).compile(),
    ).rejects.toMatchObject({ code: 'KubeConfigNotFound', message: expect.stringContaining('KUBECONFIG') });
  });

  it('finds the cluster through KUBECONFIG when the app gives neither client nor kubeConfig', async () => {
    const path = join(dir, 'kubeconfig');
    await env.server!.writeKubeconfig(path);
    const namespace = await env.createNamespace();
    const module = await Test.createTestingModule({
      imports: [
        OperatorModule.forRoot({
          environment: { KUBECONFIG: path },
          controllers: { greetingreconciler: { namespaces: [namespace] } },
        }),
        GreetingModule,
        fixtureLoggerModule(),
      ],
    }).compile();
    await module.init();
    try {
      await env.adminClient.create(Greeting, greeting(namespace, 'via-kubeconfig'));
      await waitFor(() => module.get(ReconcileProbe).finished.includes('via-kubeconfig'));
    } finally {
      await module.close();
    }
  });

  it('fails the bootstrap when a CRD is missing and checking is on, saying to apply it', async () => {
    const bare = await OperatorTestEnvironment.start();
    try {
      const failure = createOperatorTestingModule({
        testEnvironment: bare,
        imports: [FixtureAppModule.forRoot({ operator: { environment: { TOSDK_CHECK_CRD: 'true' } } })],
      });
      await expect(failure).rejects.toMatchObject({
        code: 'OperatorBootstrap',
        message: expect.stringContaining('apply the CustomResourceDefinition'),
        cause: expect.objectContaining({ code: 'MissingCustomResourceDefinition' }),
      });
    } finally {
      await bare.stop();
    }
  });

  it('fails the bootstrap when no API server answers, saying what to check', async () => {
    const gone = await KubeApiServer.start({ port: 0 });
    const kubeConfig = gone.kubeConfig();
    await gone.stop();
    const module = await Test.createTestingModule({
      imports: [
        OperatorModule.forRoot({ kubeConfig, readEnvironment: false }),
        GreetingModule,
        fixtureLoggerModule(),
      ],
    }).compile();
    await expect(module.init()).rejects.toMatchObject({
      code: 'OperatorBootstrap',
      message: expect.stringContaining('To fix: check'),
    });
    await module.close();
  });

  it('fails the bootstrap when the operator may not use its lease, saying which permission to grant', async () => {
    const server = await KubeApiServer.start({
      port: 0,
      rbac: true,
      users: [{ name: 'operator', token: 'operator-token' }],
    });
    try {
      const admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
      const ClusterRole = defineResource({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        kind: 'ClusterRole',
        scope: 'Cluster',
      });
      const ClusterRoleBinding = defineResource({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        kind: 'ClusterRoleBinding',
        scope: 'Cluster',
      });
      await admin.create(ClusterRole, {
        metadata: { name: 'no-leases' },
        rules: [
          { apiGroups: [''], resources: ['configmaps', 'events'], verbs: ['*'] },
          { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'], verbs: ['create'] },
        ],
      } as KubernetesResource);
      await admin.create(ClusterRoleBinding, {
        metadata: { name: 'no-leases' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'no-leases' },
        subjects: [{ kind: 'User', name: 'operator', apiGroup: 'rbac.authorization.k8s.io' }],
      } as KubernetesResource);
      admin.close();
      const module = await Test.createTestingModule({
        imports: [
          OperatorModule.forRoot({
            kubeConfig: server.kubeConfig('operator'),
            readEnvironment: false,
            leaderElection: { leaseName: 'nest-app', leaseNamespace: 'default' },
          }),
          AuditOnlyModule,
        ],
      }).compile();
      await expect(module.init()).rejects.toMatchObject({
        code: 'OperatorBootstrap',
        message: expect.stringContaining('leases'),
        cause: expect.objectContaining({ code: 'LeaderElectionPermission' }),
      });
      await module.close();
    } finally {
      await server.stop();
    }
  });

  it('warns when the app has no reconciler', async () => {
    const logger = new CollectingLogger();
    const t = await createOperatorTestingModule({
      testEnvironment: env,
      imports: [OperatorModule.forRoot({ readEnvironment: false })],
      configureApp: (app) => app.useLogger(logger),
    });
    await t.close();
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: expect.stringContaining('no @Reconciler providers found'),
      }),
    );
  });

  it('refuses a request-scoped reconciler with a message that says what to change', async () => {
    await expect(
      createOperatorTestingModule({
        testEnvironment: env,
        imports: [OperatorModule.forRoot({ readEnvironment: false })],
        providers: [RequestScopedReconciler],
      }),
    ).rejects.toMatchObject({
      code: 'OperatorModuleConfiguration',
      message: expect.stringContaining('RequestScopedReconciler is request-scoped'),
    });
  });

  it('[OP-05] takes options from forRootAsync with an injected factory, and applies overrider providers last', async () => {
    const namespace = await env.createNamespace();
    const t = await createOperatorTestingModule({
      testEnvironment: env,
      restrictToNamespace: false,
      imports: [
        OperatorModule.forRootAsync({
          imports: [SettingsModule],
          inject: [Settings],
          useFactory: (settings: Settings) => ({
            readEnvironment: false,
            controllers: { greetingreconciler: { namespaces: [settings.namespace] } },
          }),
        }),
        GreetingModule,
        fixtureLoggerModule(),
      ],
      providers: [Tier, GoldOnly],
      configure: (b) => b.overrideProvider(Settings).useValue({ namespace }),
    });
    try {
      const config = t.module.get(OperatorRegistry).getController('greetingreconciler').configuration;
      expect(config.namespaces).toEqual([namespace]);
      expect(config.labelSelector).toBe('tier=gold');
      await t.adminClient.create(Greeting, greeting(namespace, 'silver', { tier: 'silver' }));
      await t.adminClient.create(Greeting, greeting(namespace, 'gold', { tier: 'gold' }));
      await t.waitForResource(ResourceTypes.ConfigMap, 'gold', undefined, { namespace });
      expect(t.module.get(ReconcileProbe).attemptsOf('silver')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'configmaps' })
class AuditOnlyReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}
@Module({ providers: [AuditOnlyReconciler] })
class AuditOnlyModule {}

@Injectable({ scope: Scope.REQUEST })
@Reconciler({ resource: ResourceTypes.ConfigMap })
class RequestScopedReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

@Injectable()
class Settings {
  namespace = 'unset';
}
@Module({ providers: [Settings], exports: [Settings] })
class SettingsModule {}

@Injectable()
class Tier {
  readonly selector = 'tier=gold';
}

@ConfigurationOverrider()
@Injectable()
class GoldOnly implements ControllerConfigurationOverrider {
  constructor(private readonly tier: Tier) {}
  overrideController(_name: string, options: ControllerConfigurationOptions<KubernetesResource>) {
    return { ...options, labelSelector: this.tier.selector };
  }
}
