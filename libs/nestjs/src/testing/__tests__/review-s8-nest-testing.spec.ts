import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { ResourceID, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { ControllerConfigurationOptions, KubernetesResource } from '@tosdk/core';
import { ConfigurationOverrider, OperatorModule, OperatorRegistry, Reconciler } from '../../index.js';
import type { ControllerConfigurationOverrider } from '../../index.js';
import { createOperatorTestingModule, OperatorTestEnvironment } from '../index.js';

type ConfigMap = KubernetesResource & { data?: Record<string, string> };

/** Marks each ConfigMap it reconciles with the namespace of the controller's test (data.seenBy). */
@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'maps' })
class MapsReconciler {
  reconcile(map: ConfigMap) {
    if (map.data?.['seen'] === 'yes') return UpdateControl.noUpdate();
    return UpdateControl.patchResource({ ...map, data: { ...map.data, seen: 'yes' } });
  }
}

/** An app's overrider that reads its tenants' namespaces from its settings (the README's example). */
@ConfigurationOverrider()
class TenantNamespaces implements ControllerConfigurationOverrider {
  overrideController(
    _name: string,
    options: ControllerConfigurationOptions<KubernetesResource>,
  ): ControllerConfigurationOptions<KubernetesResource> {
    return { ...options, namespaces: ['tenant-a'] };
  }
}

@Module({ providers: [MapsReconciler, TenantNamespaces] })
class TenantModule {}

@Module({ imports: [OperatorModule.forRoot({ readEnvironment: false }), TenantModule] })
class TenantAppModule {}

@Module({ providers: [MapsReconciler] })
class MapsModule {}

@Module({ imports: [OperatorModule.forRoot({ readEnvironment: false }), MapsModule] })
class MapsAppModule {}

describe('review S8: @tosdk/nestjs/testing', () => {
  let environment: OperatorTestEnvironment;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
  });
  afterAll(async () => {
    await environment?.stop();
  });

  it("[FINDING S8-NE1] the test's namespace restriction wins over the app's own @ConfigurationOverrider", async () => {
    const t = await createOperatorTestingModule({
      imports: [TenantAppModule],
      testEnvironment: environment,
    });
    try {
      // documented: "restrict every namespaced controller to the test's namespace ... applied after
      // every other source"; the app's overrider runs after it and widens the controller again
      expect(t.module.get(OperatorRegistry).getController('maps').configuration.namespaces).toEqual([
        t.namespace,
      ]);
    } finally {
      await t.close();
    }
  });

  it('guard: two tests on one environment each reconcile their own namespace only', async () => {
    const a = await createOperatorTestingModule({ imports: [MapsAppModule], testEnvironment: environment });
    try {
      await a.adminClient.create(ResourceTypes.ConfigMap, {
        metadata: { name: 'first', namespace: a.namespace },
      });
      await a.waitForResource(ResourceTypes.ConfigMap, 'first', (m: ConfigMap) => m.data?.['seen'] === 'yes');
    } finally {
      await a.close();
    }
    const b = await createOperatorTestingModule({ imports: [MapsAppModule], testEnvironment: environment });
    try {
      // an object of another namespace (created before b's operator) and one of b's own
      const other = await b.environment.createNamespace('other');
      await b.adminClient.create(ResourceTypes.ConfigMap, { metadata: { name: 'x', namespace: other } });
      await b.adminClient.create(ResourceTypes.ConfigMap, {
        metadata: { name: 'second', namespace: b.namespace },
      });
      await b.waitForResource(
        ResourceTypes.ConfigMap,
        'second',
        (m: ConfigMap) => m.data?.['seen'] === 'yes',
      );
      const foreign = await b.adminClient.get(ResourceTypes.ConfigMap, new ResourceID('x', other));
      expect(foreign?.data?.['seen']).toBeUndefined();
      expect(b.module.get(OperatorRegistry).getController('maps').configuration.namespaces).toEqual([
        b.namespace,
      ]);
      // a's namespace is deleted by a.close()
      await b.waitForDeletion(ResourceTypes.Namespace, a.namespace, { timeoutMs: 20_000 });
    } finally {
      await b.close();
    }
  });
});
