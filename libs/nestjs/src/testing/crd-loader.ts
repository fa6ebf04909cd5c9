import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
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

/** A path that cannot be read: named as given and as resolved, and where a relative one starts. */
function unreadable(path: string, error: unknown): CrdLoadError {
  const where = resolve(path);
  return new CrdLoadError(
    `cannot read CRD file ${path}${where === path ? '' : ` (${where})`}: ${(error as Error).message}; ` +
      'relative paths start at the working directory of the test run, not at the test file ' +
      "(use an absolute path, e.g. fileURLToPath(new URL('../deploy/crd.yaml', import.meta.url)))",
    { cause: error },
  );
}

/** Why a document of a CRD source is no CRD it can apply, or undefined when it is one. */
function notACrd(doc: unknown): string | undefined {
  const o = (typeof doc === 'object' && doc !== null ? doc : {}) as KubernetesResource;
  const name = typeof o.metadata?.name === 'string' ? ` ${o.metadata.name}` : '';
  if (o.kind !== 'CustomResourceDefinition') {
    const kind = typeof o.kind === 'string' ? `${o.kind}${name}` : `a document without kind${name}`;
    return (
      `${kind}${typeof o.apiVersion === 'string' ? ` (${o.apiVersion})` : ''} is not a CustomResourceDefinition; ` +
      'crds takes CRD files and directories only: create other objects in the test (adminClient.create or apply)'
    );
  }
  if (!name) return 'a CustomResourceDefinition without metadata.name; give it the name <plural>.<group>';
  // without apiVersion the client sends it as the v1 kind it posts to
  if (o.apiVersion !== undefined && o.apiVersion !== 'apiextensions.k8s.io/v1') {
    return (
      `CustomResourceDefinition${name} is ${String(o.apiVersion)}, which Kubernetes no longer serves (removed in 1.22); ` +
      'convert it to apiextensions.k8s.io/v1 (e.g. generate it with customResourceDefinitions() of @tosdk/core)'
    );
  }
  return undefined;
}

/** The items of a List document (`kind: List` or `<Kind>List` with `items`), else undefined. */
function listItems(doc: unknown): unknown[] | undefined {
  const o = doc as { kind?: unknown; items?: unknown };
  return typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items)
    ? o.items
    : undefined;
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
    throw unreadable(source, error);
  }
  const files = entries.filter((name) => CRD_FILE.test(name)).sort();
  if (files.length === 0) {
    throw new CrdLoadError(
      `CRD directory ${source} has no .yaml, .yml or .json file; give the directory holding the CRD files (e.g. config/crd/bases)`,
    );
  }
  return files.map((name) => join(source, name));
}

/** The documents of one YAML/JSON file (an empty one as null). */
async function readDocuments(file: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
  // merge keys (<<: *anchor) as kubectl's YAML reader (go-yaml v2) takes them; YAML 1.2 alone would keep '<<' as a key
  const parsed = parseAllDocuments(text, { merge: true });
  const bad = parsed.find((d) => d.errors.length > 0);
  if (bad) throw new CrdLoadError(`CRD file ${file} is not valid YAML: ${bad.errors[0].message}`);
  // empty documents (a leading or trailing ---) stay, so a document is counted as an editor shows it
  return parsed.map((d) => d.toJS() as unknown);
}

/**
 * Reads CRDs from files (YAML or JSON, several documents allowed, a List standing for its items),
 * directories (their `.yaml`, `.yml` and `.json` files in name order, as envtest's CRD paths) and
 * objects.
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
      for (const [i, doc] of docs.entries()) {
        if (doc === null || doc === undefined) continue;
        const where = typeof source === 'string' ? `, document ${i + 1}` : '';
        // a List (kubectl get crds -o yaml) stands for its items, as kubectl apply -f reads it
        const items = listItems(doc);
        for (const [j, item] of (items ?? [doc]).entries()) {
          const wrong = notACrd(item);
          if (wrong) throw new CrdLoadError(`${from}${where}${items ? `, item ${j + 1}` : ''}: ${wrong}`);
          out.push(item as KubernetesResource);
        }
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
