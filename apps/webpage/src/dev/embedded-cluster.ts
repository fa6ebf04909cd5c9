import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { defineResource, KubernetesClient, ResourceID } from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';
import type { KubeApiServer } from '@tosdk/apiserver';
import { FIELD_MANAGER } from '../webpage-names.js';
import { WebPage, WEBPAGE_CRD_PATH } from '../webpage.resource.js';
import { EXAMPLE_WEBPAGE_PATH, readManifests } from './manifests.js';

const CustomResourceDefinition = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

/** Thrown when the embedded cluster cannot be prepared. */
export class EmbeddedClusterError extends Error {
  /** Stable error code. */
  readonly code = 'EmbeddedCluster';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbeddedClusterError';
  }
}

/** Options of {@link startEmbeddedCluster}. */
export interface EmbeddedClusterOptions {
  /** Where the kubeconfig for kubectl is written. Required. */
  kubeconfigPath: string;
  /** Port of the API server. Defaults to 0 (a free port). */
  port?: number;
  /** Namespace of the example WebPage. Defaults to `default`. */
  namespace?: string;
  /** How long to wait for the CRD to be Established. Defaults to 10,000 ms. */
  crdTimeoutMs?: number;
}

/** A running embedded cluster. */
export interface EmbeddedCluster {
  /** The API server (127.0.0.1, workloads simulated). */
  readonly server: KubeApiServer;
  /** Admin KubeConfig of the server. */
  readonly kubeConfig: KubeConfig;
  /** Where the kubeconfig file is. */
  readonly kubeconfigPath: string;
  /** Stops the server. */
  stop(): Promise<void>;
}

/**
 * Dev mode without a cluster: starts `@tosdk/apiserver` on 127.0.0.1 with workload simulation (the
 * nginx Deployments report ready replicas), writes a kubeconfig for kubectl, applies the WebPage CRD
 * and waits until it is Established, and creates the example WebPage (unless it exists).
 *
 * @throws EmbeddedClusterError when the server, the kubeconfig, the CRD or the example fail.
 */
export async function startEmbeddedCluster(options: EmbeddedClusterOptions): Promise<EmbeddedCluster> {
  // loaded only here: with a real cluster the operator never needs the API server's code
  const { KubeApiServer } = await import('@tosdk/apiserver');
  const server = await KubeApiServer.start({
    host: '127.0.0.1',
    port: options.port ?? 0,
    simulateWorkloads: true,
  });
  const kubeConfig = server.kubeConfig();
  const client = KubernetesClient.fromKubeConfig(kubeConfig);
  try {
    await mkdir(dirname(options.kubeconfigPath), { recursive: true });
    await server.writeKubeconfig(options.kubeconfigPath);
    for (const crd of await readManifests(WEBPAGE_CRD_PATH)) {
      await client.apply(
        CustomResourceDefinition,
        crd as KubernetesResource & { metadata: { name: string } },
        {
          fieldManager: FIELD_MANAGER,
        },
      );
      await waitEstablished(client, crd.metadata!.name!, options.crdTimeoutMs ?? 10_000);
    }
    const namespace = options.namespace ?? 'default';
    for (const page of await readManifests(EXAMPLE_WEBPAGE_PATH)) {
      const id = new ResourceID(page.metadata!.name!, namespace);
      if (await client.get(WebPage, id)) continue;
      await client.create(WebPage, { ...page, metadata: { ...page.metadata, namespace } });
    }
  } catch (cause) {
    client.close();
    await server.stop();
    throw new EmbeddedClusterError(
      `the embedded API server could not be prepared: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  client.close();
  return { server, kubeConfig, kubeconfigPath: options.kubeconfigPath, stop: () => server.stop() };
}

async function waitEstablished(client: KubernetesClient, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = (await client.get(CustomResourceDefinition, new ResourceID(name))) as
      { status?: { conditions?: Array<{ type?: string; status?: string }> } } | undefined;
    if (crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline)
      throw new EmbeddedClusterError(`CRD ${name} was not Established within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
