import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { KubernetesResource } from '@tosdk/core';

/** The example WebPage that dev mode creates (`apps/webpage/examples/hello-webpage.yaml`). */
export const EXAMPLE_WEBPAGE_PATH = fileURLToPath(
  new URL('../../examples/hello-webpage.yaml', import.meta.url),
);

/** Thrown when a manifest file cannot be read or holds something other than Kubernetes objects. */
export class ManifestError extends Error {
  /** Stable error code. */
  readonly code = 'WebPageManifest';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ManifestError';
  }
}

/**
 * The objects of a YAML file (several documents allowed, empty ones skipped).
 * @throws ManifestError naming the file and the problem.
 */
export async function readManifests(path: string): Promise<KubernetesResource[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new ManifestError(`cannot read ${path}: ${(cause as Error).message}`, { cause });
  }
  const docs = parseAllDocuments(text);
  const objects: KubernetesResource[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new ManifestError(`${path} is not valid YAML: ${doc.errors[0].message}`);
    const obj = doc.toJS() as KubernetesResource | null;
    if (obj === null || obj === undefined) continue;
    if (typeof obj !== 'object' || !obj.apiVersion || !obj.kind || !obj.metadata?.name) {
      throw new ManifestError(
        `${path}: every document must be a Kubernetes object with apiVersion, kind and metadata.name`,
      );
    }
    objects.push(obj);
  }
  return objects;
}
