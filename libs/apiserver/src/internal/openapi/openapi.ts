import type { JsonObject } from '../../types.js';
import { SERVER_VERSION } from '../discovery/discovery.js';
import { isObject } from '../common/json.js';
import type { ResourceRegistry } from '../resources/registry.js';
import { builtinComponents } from './builtin-schemas.js';

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'].map((name) => ({
  name,
  in: 'query',
  schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
}));

/**
 * The OpenAPI v3 document of a served group version: one path per resource with the operations,
 * `x-kubernetes-group-version-kind` and the write query parameters, and the schemas of built-in
 * kinds from Kubernetes' OpenAPI as client-node ships it (see builtin-schemas.ts), so `kubectl
 * explain` works on them; kubectl also learns from it that the server validates fields itself
 * (`fieldValidation`), so it never falls back to the protobuf OpenAPI v2 document.
 */
export function builtinOpenApiV3(
  registry: ResourceRegistry,
  group: string,
  version: string,
  crdSchema: (crdName: string, version: string) => JsonObject | undefined = () => undefined,
): JsonObject | undefined {
  const rs = registry.inGroupVersion(group, version);
  if (rs.length === 0) return undefined;
  const paths: Record<string, JsonObject> = {};
  const schemas: Record<string, JsonObject> = {};
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  for (const { rt } of rs) {
    const gvk = [{ group, version, kind: rt.kind }];
    const builtin = rt.crdName === undefined ? builtinComponents(group, version, rt.kind) : undefined;
    const ref = builtin?.root ?? `${group === '' ? 'io.k8s.api.core' : group}.${version}.${rt.kind}`;
    const baseProps: JsonObject = {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
    };
    const base: JsonObject = { type: 'object', properties: baseProps };
    const custom = rt.crdName !== undefined ? crdSchema(rt.crdName, version) : undefined;
    const merged: JsonObject = custom
      ? {
          ...custom,
          properties: {
            ...baseProps,
            ...(isObject(custom.properties) ? custom.properties : {}),
          },
        }
      : base;
    if (builtin) Object.assign(schemas, builtin.schemas);
    else schemas[ref] = { ...merged, 'x-kubernetes-group-version-kind': gvk };
    const op = (id: string): JsonObject => ({
      operationId: `${id}${rt.kind}`,
      parameters: QUERY_PARAMS,
      responses: {
        '200': {
          description: 'OK',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
        },
      },
      'x-kubernetes-action': id,
      'x-kubernetes-group-version-kind': { group, version, kind: rt.kind },
    });
    const item = rt.namespaced
      ? `${prefix}/namespaces/{namespace}/${rt.plural}/{name}`
      : `${prefix}/${rt.plural}/{name}`;
    const coll = rt.namespaced ? `${prefix}/namespaces/{namespace}/${rt.plural}` : `${prefix}/${rt.plural}`;
    if (rt.virtual) {
      paths[coll] = { post: op('create') };
      continue;
    }
    paths[coll] = { get: op('list'), post: op('create') };
    paths[item] = { get: op('read'), put: op('replace'), patch: op('patch'), delete: op('delete') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}
