import { KubeApiServer } from '@tosdk/apiserver';
import type { JsonObject } from '@tosdk/apiserver';
import { customResourceDefinitions, InvalidResourceDefinitionError } from '@tosdk/core';
import type { GeneratedCustomResourceDefinition, ResourceType } from '@tosdk/core';
import { TosdkCliError } from './errors.js';
import type { AppModel } from './introspect.js';

/** Every kind the app uses (primaries, watched and dependent kinds) plus `extra`, in first-seen order. */
export function kindsOf(app: AppModel, extra: readonly ResourceType[] = []): ResourceType[] {
  const all: ResourceType[] = [...extra];
  for (const c of app.controllers) {
    all.push(
      c.configuration.resourceType,
      ...c.watched.map((w) => w.type),
      ...c.dependents.map((d) => d.type),
    );
  }
  return [...new Set(all)];
}

/**
 * The custom kinds (a group with a dot, not `*.k8s.io`) declared without a schema: no CRD can be
 * generated for them, and `tosdk generate` says so rather than reporting everything up to date.
 */
export function kindsWithoutSchema(kinds: readonly ResourceType[]): ResourceType[] {
  return kinds.filter((k) => !k.definition && k.group.includes('.') && !k.group.endsWith('.k8s.io'));
}

/**
 * The CRDs of the kinds declared with a schema, checked twice: by tosdk's structural rules (which name
 * the field), then by creating them on an in-memory `@tosdk/apiserver`, which validates CRDs as
 * kube-apiserver does and compiles their CEL rules.
 *
 * @throws TosdkCliError `InvalidDefinition` naming the CRD and the field.
 */
export async function generateCrds(
  kinds: readonly ResourceType[],
): Promise<GeneratedCustomResourceDefinition[]> {
  let crds: GeneratedCustomResourceDefinition[];
  try {
    crds = customResourceDefinitions(kinds);
  } catch (error) {
    if (error instanceof InvalidResourceDefinitionError) {
      throw new TosdkCliError('InvalidDefinition', error.message, { cause: error });
    }
    throw error;
  }
  await checkOnApiServer(crds);
  return crds;
}

/** Creates the CRDs on a throw-away in-memory API server (127.0.0.1, no RBAC): Kubernetes' own validation and CEL compilation. */
export async function checkOnApiServer(crds: readonly GeneratedCustomResourceDefinition[]): Promise<void> {
  if (crds.length === 0) return;
  const server = await KubeApiServer.start({ host: '127.0.0.1', port: 0 });
  try {
    const client = server.internalClient();
    for (const crd of crds) {
      try {
        client.create(
          'apiextensions.k8s.io',
          'v1',
          'customresourcedefinitions',
          '',
          JSON.parse(JSON.stringify(crd)) as JsonObject,
        );
      } catch (error) {
        throw new TosdkCliError(
          'InvalidDefinition',
          `CRD ${crd.metadata.name} is rejected by the API server: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
  } finally {
    await server.stop();
  }
}
