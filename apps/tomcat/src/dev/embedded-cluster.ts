import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { defineResource, KubernetesApiError, KubernetesClient, ResourceID } from '@tosdk/core';
import type { KubernetesResource, ResourceType } from '@tosdk/core';
import type { KubeApiServer } from '@tosdk/apiserver';
import { Tomcat, TOMCAT_CRD_PATHS, Webapp } from '../tomcat.resource.js';

/** The example Tomcat and Webapps that dev mode creates (`apps/tomcat/examples/tomcat-and-webapps.yaml`). */
export const EXAMPLE_PATH = fileURLToPath(new URL('../../examples/tomcat-and-webapps.yaml', import.meta.url));

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

/** A running embedded cluster. */
export interface EmbeddedCluster {
  /** The API server on 127.0.0.1. */
  readonly server: KubeApiServer;
  /** Its admin KubeConfig. */
  readonly kubeConfig: KubeConfig;
  /** Where the kubeconfig file for kubectl is. */
  readonly kubeconfigPath: string;
  /** Stops the server. */
  stop(): Promise<void>;
}

/**
 * Dev mode without a cluster: `@tosdk/apiserver` on 127.0.0.1 (a free port), a kubeconfig for
 * kubectl, the Tomcat and Webapp CRDs, and the examples in `default`; workloads are simulated
 * (Deployments get ReplicaSets and pods that become ready).
 * @throws EmbeddedClusterError naming what failed.
 */
export async function startEmbeddedCluster(kubeconfigPath: string): Promise<EmbeddedCluster> {
  const { KubeApiServer } = await import('@tosdk/apiserver');
  const server = await KubeApiServer.start({ host: '127.0.0.1', port: 0, simulateWorkloads: true });
  const kubeConfig = server.kubeConfig();
  const client = KubernetesClient.fromKubeConfig(kubeConfig);
  try {
    await mkdir(dirname(kubeconfigPath), { recursive: true });
    await server.writeKubeconfig(kubeconfigPath);
    for (const crd of (await Promise.all(TOMCAT_CRD_PATHS.map(readObjects))).flat()) {
      await client.create(CustomResourceDefinition, crd).catch((error: unknown) => {
        if (!(error instanceof KubernetesApiError && error.isAlreadyExists())) throw error;
      });
      await waitEstablished(client, crd.metadata!.name!);
    }
    for (const example of await readObjects(EXAMPLE_PATH)) {
      const type: ResourceType = example.kind === Tomcat.kind ? Tomcat : Webapp;
      const id = new ResourceID(example.metadata!.name!, 'default');
      if (await client.get(type, id)) continue;
      await client.create(type, { ...example, metadata: { ...example.metadata, namespace: 'default' } });
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
  return { server, kubeConfig, kubeconfigPath, stop: () => server.stop() };
}

async function readObjects(path: string): Promise<KubernetesResource[]> {
  const objects: KubernetesResource[] = [];
  for (const doc of parseAllDocuments(await readFile(path, 'utf8'))) {
    if (doc.errors.length > 0)
      throw new EmbeddedClusterError(`${path} is not valid YAML: ${doc.errors[0].message}`);
    const obj = doc.toJS() as KubernetesResource | null;
    if (obj?.metadata?.name) objects.push(obj);
  }
  return objects;
}

async function waitEstablished(client: KubernetesClient, name: string, timeoutMs = 10_000): Promise<void> {
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
