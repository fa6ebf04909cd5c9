import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubernetesClient } from '@tosdk/core';
import { KUBE_CONFIG, OperatorModule } from '../index.js';

/**
 * Review S13: the README's `forRoot({ kubeConfig: loadClientNodeKubeConfig() })` reads the
 * kubeconfig when the module file is imported, so an app's tests failed on a machine without one
 * (CI) before a testing module could override `KUBE_CONFIG`. A function given as `kubeConfig` is
 * called only when the module's providers are built (Spring's Config bean is made the same way).
 */
function config(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('review s13: a kubeConfig factory', () => {
  it('[FINDING S13-NE9] a kubeConfig function is not called when the test overrides KUBE_CONFIG, and is called once otherwise', async () => {
    let calls = 0;
    const lazy = (): KubeConfig => {
      calls++;
      throw new Error('no kubeconfig on this machine');
    };
    @Module({
      imports: [OperatorModule.forRoot({ kubeConfig: lazy, autoStart: false, readEnvironment: false })],
    })
    class AppModule {}
    const overridden = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(KUBE_CONFIG)
      .useValue(config('https://127.0.0.1:1'))
      .compile();
    try {
      expect(calls).toBe(0);
      expect(overridden.get(KubernetesClient)).toBeInstanceOf(KubernetesClient);
    } finally {
      await overridden.close();
    }

    let made = 0;
    const moduleRef = await Test.createTestingModule({
      imports: [
        OperatorModule.forRoot({
          kubeConfig: () => {
            made++;
            return config('https://127.0.0.1:2');
          },
          autoStart: false,
          readEnvironment: false,
        }),
      ],
    }).compile();
    try {
      expect(made).toBe(1);
      expect(moduleRef.get<string, KubeConfig>(KUBE_CONFIG).getCurrentCluster()?.server).toBe(
        'https://127.0.0.1:2',
      );
    } finally {
      await moduleRef.close();
    }
  });
});
