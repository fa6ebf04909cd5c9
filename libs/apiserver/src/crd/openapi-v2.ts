/**
 * The Swagger 2.0 document (`/openapi/v2`) of custom resources: definitions named like kube-apiserver's
 * (`io.tosdk.sample.v1.WebPage`) with `x-kubernetes-group-version-kind`, the meta definitions, and the
 * REST paths. The server adds the built-in kinds to it (`internal/openapi/openapi-v2.ts`).
 */
import type { JsonObject } from '../types.js';
import type { CompiledCrd } from './compile-crd.js';
import { crdDefinitions } from './openapi/crd-definitions.js';
import { crdPaths } from './openapi/crd-paths.js';
import { metaSchemas } from './openapi/meta-schemas.js';
import { OPENAPI_INFO_VERSION } from './openapi-v3.js';

const ref = (name: string): string => `#/definitions/${name}`;

/** Builds the Swagger 2.0 document of the served versions of `crds`. */
export function buildOpenApiV2(
  crds: readonly CompiledCrd[],
  options: { infoVersion?: string } = {},
): JsonObject {
  const definitions: Record<string, JsonObject> = metaSchemas(ref, false);
  const paths: Record<string, JsonObject> = {};
  for (const crd of crds) {
    for (const v of crd.versions) {
      if (!v.served) continue;
      Object.assign(definitions, crdDefinitions(crd, v, 'v2', ref));
      Object.assign(paths, crdPaths(crd, v, 'v2', ref));
    }
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: options.infoVersion ?? OPENAPI_INFO_VERSION },
    paths: Object.fromEntries(
      Object.keys(paths)
        .sort()
        .map((k) => [k, paths[k]]),
    ),
    definitions: Object.fromEntries(
      Object.keys(definitions)
        .sort()
        .map((k) => [k, definitions[k]]),
    ),
  };
}
