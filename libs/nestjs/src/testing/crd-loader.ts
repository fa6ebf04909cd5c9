import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { defineResource, KubernetesApiError, ResourceID } from '@tosdk/core';
import type { KubernetesClient, KubernetesResource } from '@tosdk/core';
import { waitFor } from './wait-for.js';

/**
 * A CRD for the test environment: a path to a YAML/JSON file (one or more documents), a path to a
 * directory of such files, or an object.
 */
export type CrdSource = string | KubernetesResource;

/** The CustomResourceDefinition kind. */
export const CustomResourceDefinitionType = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

/** Thrown when a CRD source cannot be read or is not a CustomResourceDefinition. */
export class CrdLoadError extends Error {
  /** Stable error code. */
  readonly code = 'CrdLoad';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CrdLoadError';
  }
}

/** The file names envtest reads in a CRD directory. */
const CRD_FILE = /\.(ya?ml|json)$/;

/** The paths a source names: the file itself, or the CRD files of a directory (sorted, not recursive). */
async function crdFiles(source: string): Promise<string[]> {
  let entries: string[];
  try {
    if (!(await stat(source)).isDirectory()) return [source];
    entries = await readdir(source);
  } catch (error) {
    throw new CrdLoadError(`cannot read CRD file ${source}: ${(error as Error).message}`, { cause: error });
  }
  const files = entries.filter((name) => CRD_FILE.test(name)).sort();
  if (files.length === 0) {
    throw new CrdLoadError(
      `CRD directory ${source} has no .yaml, .yml or .json file; give the directory holding the CRD files (e.g. config/crd/bases)`,
    );
  }
  return files.map((name) => join(source, name));
}

/** The documents of one YAML/JSON file (empty documents dropped). */
async function readDocuments(file: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CrdLoadError(`cannot read CRD file ${file}: ${(error as Error).message}`, { cause: error });
  }
  // merge keys (<<: *anchor) as kubectl's YAML reader (go-yaml v2) takes them; YAML 1.2 alone would keep '<<' as a key
  const parsed = parseAllDocuments(text, { merge: true });
  const bad = parsed.find((d) => d.errors.length > 0);
  if (bad) throw new CrdLoadError(`CRD file ${file} is not valid YAML: ${bad.errors[0].message}`);
  return parsed.map((d) => d.toJS() as unknown).filter((d) => d !== null && d !== undefined);
}

/**
 * Reads CRDs from files (YAML or JSON, several documents allowed), directories (their `.yaml`,
 * `.yml` and `.json` files in name order, as envtest's CRD paths) and objects.
 * @throws CrdLoadError naming the file and what is wrong.
 */
export async function loadCrds(sources: readonly CrdSource[]): Promise<KubernetesResource[]> {
  const out: KubernetesResource[] = [];
  for (const source of sources) {
    const named: Array<{ from: string; docs: unknown[] }> = [];
    if (typeof source === 'string') {
      for (const file of await crdFiles(source)) named.push({ from: file, docs: await readDocuments(file) });
    } else {
      named.push({ from: 'a CRD object', docs: [source] });
    }
    for (const { from, docs } of named) {
      for (const doc of docs) {
        const crd = doc as KubernetesResource;
        if (crd?.kind !== 'CustomResourceDefinition' || !crd.metadata?.name) {
          throw new CrdLoadError(
            `${from}: expected a CustomResourceDefinition with metadata.name, got kind ${String(crd?.kind)}`,
          );
        }
        out.push(crd);
      }
    }
  }
  return out;
}

function established(crd: KubernetesResource | undefined): boolean {
  const conditions = (
    crd as { status?: { conditions?: Array<{ type?: string; status?: string }> } } | undefined
  )?.status?.conditions;
  return conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}

/** Creates (or replaces) each CRD and waits until every one is Established. */
export async function applyCrds(
  client: KubernetesClient,
  crds: readonly KubernetesResource[],
  timeoutMs = 30_000,
): Promise<void> {
  for (const crd of crds) {
    const body = structuredClone(crd);
    try {
      await client.create(CustomResourceDefinitionType, body);
    } catch (error) {
      if (!(error instanceof KubernetesApiError && error.isAlreadyExists())) throw error;
      const current = await client.get(CustomResourceDefinitionType, new ResourceID(crd.metadata!.name!));
      body.metadata = { ...body.metadata, resourceVersion: current?.metadata?.resourceVersion };
      await client.update(CustomResourceDefinitionType, body);
    }
  }
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    await waitFor(
      async () => established(await client.get(CustomResourceDefinitionType, new ResourceID(name))),
      { timeoutMs, description: `CustomResourceDefinition ${name} Established` },
    );
  }
}
