/**
 * The OpenAPI definitions of a custom resource kind and its list, built from a CRD version's schema the
 * way kube-apiserver publishes them.
 */
import type { JsonObject } from '../../types.js';
import type { CompiledCrd, CompiledVersion } from '../compile-crd.js';
import { cloneJson, isObject } from '../json-util.js';
import { API_VERSION_DESCRIPTION, KIND_DESCRIPTION, META } from './meta-schemas.js';

/** Component name of a kind: the group reversed, then version and kind (`io.tosdk.sample.v1.WebPage`). */
export function definitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** Which dialect: v3 keeps `nullable` and value validations; v2 drops what Swagger 2.0 cannot say. */
export type Dialect = 'v2' | 'v3';

const V2_DROPPED = ['nullable', 'anyOf', 'oneOf', 'allOf', 'not', 'x-kubernetes-validations'];

function toDialect(node: unknown, dialect: Dialect, ref: (name: string) => string): unknown {
  if (Array.isArray(node)) return node.map((n) => toDialect(n, dialect, ref));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (dialect === 'v2' && V2_DROPPED.includes(k)) continue;
    // `default`, `enum` and `example` are values, not schemas.
    out[k] = k === 'default' || k === 'enum' || k === 'example' ? cloneJson(v) : toDialect(v, dialect, ref);
  }
  // Swagger 2.0 has no null: a nullable field keeps no type so clients do not reject null.
  if (dialect === 'v2' && node.nullable === true) delete out.type;
  // As kube-apiserver publishes it: int-or-string spelled out for v3 clients.
  if (dialect === 'v3' && node['x-kubernetes-int-or-string'] === true && out.anyOf === undefined) {
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (node['x-kubernetes-embedded-resource'] === true) {
    out.properties = {
      ...resourceProperties(dialect, ref),
      ...(isObject(out.properties) ? out.properties : {}),
    };
  }
  return out;
}

function resourceProperties(dialect: Dialect, ref: (name: string) => string): JsonObject {
  const description =
    "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
  const name = `${META}.ObjectMeta`;
  return {
    apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
    kind: { type: 'string', description: KIND_DESCRIPTION },
    metadata:
      dialect === 'v3' ? { allOf: [{ $ref: ref(name) }], description } : { $ref: ref(name), description },
  };
}

/** The definitions of one served version of a CRD: the kind and its list. */
export function crdDefinitions(
  crd: CompiledCrd,
  version: CompiledVersion,
  dialect: Dialect,
  ref: (name: string) => string,
): Record<string, JsonObject> {
  const { group, names } = crd;
  const kindName = definitionName(group, version.name, names.kind);
  const listName = definitionName(group, version.name, names.listKind);
  const schema = toDialect(version.schema, dialect, ref) as JsonObject;
  const props = isObject(schema.properties) ? { ...schema.properties } : {};
  const metaRef = (name: string, description: string): JsonObject =>
    dialect === 'v3' ? { allOf: [{ $ref: ref(name) }], description } : { $ref: ref(name), description };
  Object.assign(props, resourceProperties(dialect, ref));
  const kindSchema: JsonObject = {
    ...schema,
    type: 'object',
    properties: sortKeys(props),
    'x-kubernetes-group-version-kind': [{ group, kind: names.kind, version: version.name }],
  };
  const listSchema: JsonObject = {
    type: 'object',
    description: `${names.listKind} is a list of ${names.kind}`,
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
      items: {
        type: 'array',
        description: `List of ${names.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        items: { $ref: ref(kindName) },
      },
      kind: { type: 'string', description: KIND_DESCRIPTION },
      metadata: metaRef(`${META}.ListMeta`, 'Standard list metadata.'),
    },
    'x-kubernetes-group-version-kind': [{ group, kind: names.listKind, version: version.name }],
  };
  return { [kindName]: kindSchema, [listName]: listSchema };
}

function sortKeys(o: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}
