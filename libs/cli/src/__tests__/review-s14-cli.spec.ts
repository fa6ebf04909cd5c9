// Review S14 (generators, as a user who generates and deploys an operator): the Deployment's probes
// against how the operator starts, the generated objects created on an API server, and the RBAC
// against the requests the runtime really makes (an RBAC-enforcing @tosdk/apiserver, 127.0.0.1).
import { describe, expect, it } from '@jest/globals';
import { KubernetesClient, Operator, ResourceTypes, UpdateControl } from '@tosdk/core';
import { offlineKubeConfig } from '../config.js';
import type { TosdkConfig } from '../config.js';
import { loadApp } from '../introspect.js';
import { deploymentManifest } from '../manifests.js';

const offline = () => KubernetesClient.fromKubeConfig(offlineKubeConfig());
const config = (more: Partial<TosdkConfig> = {}): TosdkConfig => ({
  name: 'op',
  namespace: 'op-system',
  app: { operator: () => undefined },
  output: {},
  deployment: { image: 'example.com/op:1.0.0' },
  ...more,
});

describe('review S14: the Deployment of tosdk generate manifests', () => {
  it('[FINDING S14-CL1] the Deployment gives a starting operator as long as its cache sync may take before the kubelet restarts it (a startupProbe on the liveness endpoint; the liveness probe alone killed it after about 30 s)', async () => {
    const app = await loadApp({
      operator: () => {
        const operator = new Operator({ client: offline() });
        operator.register(
          { reconcile: () => UpdateControl.noUpdate() },
          { resourceType: ResourceTypes.ConfigMap, name: 'cm' },
        );
        return operator;
      },
    });
    type Probe = {
      httpGet: { path: string; port: string };
      initialDelaySeconds?: number;
      periodSeconds?: number;
      failureThreshold?: number;
    };
    const container = (
      deploymentManifest(config(), app) as unknown as {
        spec: { template: { spec: { containers: Array<Record<string, Probe | undefined>> } } };
      }
    ).spec.template.spec.containers[0];
    // The HTTP server of a Nest operator listens only after onApplicationBootstrap, where the operator
    // starts and waits for its informers to sync (core's Operator cacheSyncTimeoutMs: 120 s by default).
    // Until then every probe fails (connection refused). The kubelet restarts the container after the
    // probe that guards the start fails failureThreshold times: the startup probe when there is one
    // (liveness waits for it), else the liveness probe.
    const guard = container['startupProbe'] ?? container['livenessProbe']!;
    // the first probe runs after initialDelaySeconds, then one every periodSeconds: the restart comes
    // with the failureThreshold-th failure
    const window =
      (guard.initialDelaySeconds ?? 0) + (guard.periodSeconds ?? 10) * ((guard.failureThreshold ?? 3) - 1);
    expect(window).toBeGreaterThanOrEqual(120);
    // the startup probe asks what liveness asks, on the same port (kube's advice for slow starters)
    expect(container['startupProbe']?.httpGet).toEqual(container['livenessProbe']?.httpGet);
  });
});
