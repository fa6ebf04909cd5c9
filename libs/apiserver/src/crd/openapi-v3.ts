/**
 * OpenAPI v3 documents of custom resources, as served under `/openapi/v3`: one document per group
 * version (`/openapi/v3/apis/<group>/<version>`), with the kinds' schemas carrying
 * `x-kubernetes-group-version-kind` (what `kubectl explain` looks up), the ObjectMeta schema, and the
 * REST operations (what kubectl's field-validation and patch-type checks read).
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../types.js';
import type { CompiledCrd } from './compile-crd.js';
import { crdDefinitions } from './openapi/crd-definitions.js';
import { crdPaths } from './openapi/crd-paths.js';
import { metaSchemas } from './openapi/meta-schemas.js';

/** The `info.version` of the documents. Defaults to `v1.32.0`, the Kubernetes version this server speaks. */
export const OPENAPI_INFO_VERSION = 'v1.32.0';

/** Custom resources' OpenAPI v3 documents. */
export interface OpenApiV3 {
  /** The `/openapi/v3` root's `paths`: `{"apis/<group>/<version>": {"serverRelativeURL": "/openapi/v3/apis/...?hash=..."}}`. */
  paths: Record<string, JsonObject>;
  /**
   * The document of one group version, given as `apis/<group>/<version>` (a leading `/`, an
   * `/openapi/v3/` prefix and a `?hash=` query are ignored); undefined when no CRD serves it.
   */
  document(groupVersionPath: string): JsonObject | undefined;
}

const ref = (name: string): string => `#/components/schemas/${name}`;

/** Builds the OpenAPI v3 documents of the served versions of `crds`. */
export function buildOpenApiV3(
  crds: readonly CompiledCrd[],
  options: { infoVersion?: string } = {},
): OpenApiV3 {
  const byGv = new Map<string, CompiledCrd[]>();
  for (const crd of crds) {
    for (const v of crd.versions) {
      if (!v.served) continue;
      const key = `apis/${crd.group}/${v.name}`;
      const list = byGv.get(key) ?? [];
      list.push(crd);
      byGv.set(key, list);
    }
  }
  const docs = new Map<string, { doc: JsonObject; hash: string }>();
  for (const [gv, list] of [...byGv.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const version = gv.slice(gv.lastIndexOf('/') + 1);
    const schemas: Record<string, JsonObject> = metaSchemas(ref, true);
    let paths: Record<string, JsonObject> = {};
    for (const crd of [...list].sort((a, b) => a.names.plural.localeCompare(b.names.plural))) {
      const v = crd.versions.find((x) => x.name === version);
      if (!v) continue;
      Object.assign(schemas, crdDefinitions(crd, v, 'v3', ref));
      paths = { ...paths, ...crdPaths(crd, v, 'v3', ref) };
    }
    const doc: JsonObject = {
      openapi: '3.0.0',
      info: { title: 'Kubernetes CRD Swagger', version: options.infoVersion ?? OPENAPI_INFO_VERSION },
      paths,
      components: { schemas: sortKeys(schemas) },
    };
    const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
    docs.set(gv, { doc, hash });
  }
  const root: Record<string, JsonObject> = {};
  for (const [gv, { hash }] of docs) root[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` };
  return {
    paths: root,
    document(groupVersionPath: string): JsonObject | undefined {
      const key = groupVersionPath
        .replace(/\?.*$/, '')
        .replace(/^\/+/, '')
        .replace(/^openapi\/v3\//, '')
        .replace(/\/+$/, '');
      return docs.get(key)?.doc;
    },
  };
}

function sortKeys(o: Record<string, JsonObject>): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}
