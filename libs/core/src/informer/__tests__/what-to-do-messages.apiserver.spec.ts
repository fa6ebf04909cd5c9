import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesTransportError } from '../../client/errors.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { Operator } from '../../operator/operator.js';
import { InformerStartError } from '../errors.js';
import { Informer } from '../informer.js';

// Issue 12, "messages that say what to do": each failure a new user meets first names the thing
// and the fix.

type Gizmo = CustomResource<{ size?: number }>;
const Gizmo = defineResource<Gizmo>({ group: 'missing.tosdk.io', version: 'v1alpha1', kind: 'Gizmo' });

/** The message of `error` and of every cause below it. */
function messages(error: unknown): string {
  const out: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) out.push(e.message);
  return out.join(' | ');
}

describe('messages that say what to do', () => {
  let server: KubeApiServer;

  beforeAll(async () => {
    server = await KubeApiServer.start({
      users: [{ name: 'nobody', token: 'nobody-token' }],
      rbac: true,
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('an operator whose primary kind has no CustomResourceDefinition fails start() saying which one to apply', async () => {
    const operator = new Operator({ kubeConfig: server.kubeConfig() });
    operator.register({ reconcile: () => ({}) as never }, { resourceType: Gizmo, name: 'gizmos' });
    const error = await operator.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(messages(error)).toContain('apply the CustomResourceDefinition gizmos.missing.tosdk.io');
    expect(messages(error)).toContain('version v1alpha1 served');
    await operator.stop();
  });

  it('an informer on a kind that is not served names the CustomResourceDefinition; a forbidden list names the permission to grant', async () => {
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
    const missing = new Informer<Gizmo>({ client, type: Gizmo, namespace: 'default' });
    const notServed = await missing.start().catch((e: unknown) => e);
    expect(notServed).toBeInstanceOf(InformerStartError);
    expect((notServed as Error).message).toContain(
      'apply the CustomResourceDefinition gizmos.missing.tosdk.io (with version v1alpha1 served)',
    );
    await missing.stop();

    const nobody = KubernetesClient.fromKubeConfig(server.kubeConfig('nobody'));
    const forbidden = new Informer<V1ConfigMap>({
      client: nobody,
      type: ResourceTypes.ConfigMap,
      namespace: 'default',
    });
    const refused = await forbidden.start().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InformerStartError);
    expect((refused as Error).message).toContain(
      "Grant the operator's identity list and watch on configmaps in namespace default",
    );
    await forbidden.stop();
    client.close();
    nobody.close();
  });

  it('a refused connection names the server URL and what to check', async () => {
    const gone = await KubeApiServer.start();
    const kubeConfig = gone.kubeConfig();
    const url = gone.url;
    await gone.stop();
    const client = KubernetesClient.fromKubeConfig(kubeConfig, { retry: false });
    const error = await client
      .get(ResourceTypes.ConfigMap, new ResourceID('x', 'default'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('connection');
    expect((error as Error).message).toContain(`connection to the API server at ${url} failed: ECONNREFUSED`);
    expect((error as Error).message).toContain('check that the server is running');
    client.close();
  });

  it('a kubeconfig from before a dev server restarted (new CA) fails TLS saying it is stale and how to refresh it', async () => {
    const first = await KubeApiServer.start();
    const stale = first.kubeConfig();
    const port = first.port;
    await first.stop();
    const second = await KubeApiServer.start({ port });
    try {
      const client = KubernetesClient.fromKubeConfig(stale);
      const error = await client.list(ResourceTypes.ConfigMap).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesTransportError);
      expect((error as KubernetesTransportError).failure).toBe('tls');
      const message = (error as Error).message;
      expect(message).toContain(`TLS with the API server at ${second.url} failed`);
      expect(message).toContain('the kubeconfig is stale');
      expect(message).toContain('write the kubeconfig again');
      expect(message).toContain('tosdk-apiserver --kubeconfig');
      client.close();
      // the fresh kubeconfig works
      const fresh = KubernetesClient.fromKubeConfig(second.kubeConfig());
      expect((await fresh.list(ResourceTypes.ConfigMap)).items).toBeDefined();
      fresh.close();
    } finally {
      await second.stop();
    }
  });
});
