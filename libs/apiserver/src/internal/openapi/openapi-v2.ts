import type { JsonObject } from '../../types.js';
import { isObject } from '../common/json.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceType } from '../resources/resource-type.js';
import { builtinComponents } from './builtin-schemas.js';
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_RETURNED } from './openapi-v2-proto.js';

/**
 * The Swagger 2.0 (`/openapi/v2`) side of the built-in kinds: the same schemas as their OpenAPI v3
 * documents (client-node's generated models, see builtin-schemas.ts) spelled as Swagger 2.0
 * definitions, and their REST paths. kubectl reads this document (as protobuf) to validate a
 * `kind: List` file and other kinds it cannot hand to the server's field validation, and falls
 * back to it for strategic merge patches and `explain` when OpenAPI v3 is not served.
 */

const V3_PREFIX = '#/components/schemas/';
const V2_PREFIX = '#/definitions/';

/**
 * One v3 component schema as a Swagger 2.0 definition, as kube-apiserver publishes it: `$ref`s into
 * `#/definitions/`, a described reference as `$ref` with `description` (v3's `allOf` wrapper is a
 * v3 spelling only), int-or-string as `type: string, format: int-or-string`.
 */
export function toSwaggerSchema(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  const allOf = Array.isArray(node.allOf) ? node.allOf : undefined;
  const single = allOf?.length === 1 && isObject(allOf[0]) ? allOf[0] : undefined;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'allOf' && single && typeof single.$ref === 'string') {
      out.$ref = single.$ref.replace(V3_PREFIX, V2_PREFIX);
    } else if (k === '$ref' && typeof v === 'string') {
      out.$ref = v.replace(V3_PREFIX, V2_PREFIX);
    } else if (k === 'default' || k === 'enum' || k === 'example') {
      out[k] = v;
    } else if (k === 'properties' && isObject(v)) {
      out.properties = Object.fromEntries(
        Object.entries(v).map(([name, p]) => [name, isObject(p) ? toSwaggerSchema(p) : p]),
      );
    } else if ((k === 'items' || k === 'additionalProperties') && isObject(v)) {
      out[k] = toSwaggerSchema(v);
    } else if (k === 'x-kubernetes-int-or-string') {
      out.type = 'string';
      out.format = 'int-or-string';
    } else if (k !== 'nullable' && k !== 'anyOf' && k !== 'oneOf') {
      out[k] = v;
    }
  }
  // Swagger 2.0 lets a reference carry a description but no type or properties of its own
  if (out.$ref !== undefined) {
    for (const k of Object.keys(out)) if (k !== '$ref' && k !== 'description') delete out[k];
  }
  return out;
}

const QUERY = (name: string, type: 'string' | 'boolean' | 'integer', description: string): JsonObject => ({
  name,
  in: 'query',
  type,
  description,
  uniqueItems: true,
});
const PRETTY = QUERY('pretty', 'string', "If 'true', then the output is pretty printed.");
const DRY_RUN = QUERY('dryRun', 'string', 'When present (All), modifications are not persisted.');
const FIELD_MANAGER = QUERY('fieldManager', 'string', 'The name of the actor making the change.');
const FIELD_VALIDATION = QUERY(
  'fieldValidation',
  'string',
  'How the server treats unknown or duplicate fields: Ignore, Warn (the default) or Strict.',
);
const FORCE = QUERY('force', 'boolean', 'Force an apply over conflicting field owners.');
const LIST_PARAMS = [
  PRETTY,
  QUERY('labelSelector', 'string', 'Restrict the list by label.'),
  QUERY('fieldSelector', 'string', 'Restrict the list by field.'),
  QUERY('limit', 'integer', 'Maximum number of items in one page.'),
  QUERY('continue', 'string', 'The token of the next page.'),
  QUERY('resourceVersion', 'string', 'The resourceVersion to read at or watch from.'),
  QUERY('watch', 'boolean', 'Watch for changes instead of listing.'),
];
const PATH = (name: string, description: string): JsonObject => ({
  name,
  in: 'path',
  required: true,
  type: 'string',
  description,
  uniqueItems: true,
});
/**
 * The patch types the PATCH operations list. The server takes strategic merge patches of built-in
 * kinds, but these schemas (client-node's models) carry no `x-kubernetes-patch-merge-key`: listing
 * it would make kubectl compute client-side apply and diff patches from them, replacing lists the
 * server merges by key (a container removed from a manifest would stay). Without it kubectl builds
 * them from its compiled-in types, as against kube-apiserver.
 */
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

/** The Swagger 2.0 paths of one built-in kind at one version (`root` is its definition name). */
function builtinPaths(
  rt: ResourceType,
  version: string,
  root: string,
  list?: string,
): Record<string, JsonObject> {
  const gvk = { group: rt.group, version, kind: rt.kind };
  const prefix = rt.group === '' ? `/api/${version}` : `/apis/${rt.group}/${version}`;
  const coll = rt.namespaced ? `${prefix}/namespaces/{namespace}/${rt.plural}` : `${prefix}/${rt.plural}`;
  const item = `${coll}/{name}`;
  const scope = rt.namespaced
    ? [PATH('namespace', 'object name and auth scope, such as for teams and projects')]
    : [];
  const groupId = (rt.group === '' ? 'core' : rt.group.split('.')[0]).replace(/^./, (c) => c.toUpperCase());
  const suffix = `${groupId}${version.replace(/^./, (c) => c.toUpperCase())}${rt.namespaced ? 'Namespaced' : ''}${rt.kind}`;
  const ok = (ref: string, description = 'OK'): JsonObject => ({
    description,
    schema: { $ref: `${V2_PREFIX}${ref}` },
  });
  const body = (ref: string): JsonObject => ({
    name: 'body',
    in: 'body',
    required: true,
    schema: { $ref: `${V2_PREFIX}${ref}` },
  });
  const op = (
    action: string,
    id: string,
    params: JsonObject[],
    responses: JsonObject,
    consumes?: string[],
  ) => ({
    description: `${action} ${rt.kind}`,
    operationId: `${id}${suffix}`,
    ...(consumes ? { consumes } : {}),
    produces: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
    parameters: params,
    responses,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const paths: Record<string, JsonObject> = {};
  if (rt.virtual) {
    paths[coll] = {
      parameters: scope,
      post: op('post', 'create', [body(root), PRETTY, DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], {
        '201': ok(root, 'Created'),
      }),
    };
    return paths;
  }
  const json = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
  const write = [PRETTY, DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];
  paths[coll] = {
    parameters: scope,
    ...(list ? { get: op('list', 'list', LIST_PARAMS, { '200': ok(list) }) } : {}),
    post: op(
      'post',
      'create',
      [body(root), ...write],
      { '200': ok(root), '201': ok(root, 'Created'), '202': ok(root, 'Accepted') },
      json,
    ),
  };
  paths[item] = {
    parameters: [PATH('name', `name of the ${rt.kind}`), ...scope],
    get: op('get', 'read', [PRETTY], { '200': ok(root) }),
    put: op('put', 'replace', [body(root), ...write], { '200': ok(root), '201': ok(root, 'Created') }, json),
    patch: op(
      'patch',
      'patch',
      [{ name: 'body', in: 'body', required: true, schema: { type: 'object' } }, ...write, FORCE],
      { '200': ok(root), '201': ok(root, 'Created') },
      PATCH_TYPES,
    ),
    delete: op('delete', 'delete', [PRETTY, DRY_RUN], { '200': ok(root), '202': ok(root, 'Accepted') }),
  };
  return paths;
}

const GVK = 'x-kubernetes-group-version-kind';

/**
 * Adds component schemas, keeping every `x-kubernetes-group-version-kind` a name was given: a kind's
 * schema also arrives, without it, as a type that another kind (its list) references.
 */
function addComponents(into: Record<string, JsonObject>, schemas: Record<string, JsonObject>): void {
  for (const [name, s] of Object.entries(schemas)) {
    const had = into[name];
    if (had === undefined) into[name] = s;
    else if (Array.isArray(s[GVK])) {
      const gvks: unknown[] = Array.isArray(had[GVK]) ? [...(had[GVK] as unknown[])] : [];
      for (const g of s[GVK] as unknown[])
        if (!gvks.some((x) => JSON.stringify(x) === JSON.stringify(g))) gvks.push(g);
      into[name] = { ...had, [GVK]: gvks };
    }
  }
}

interface BuiltinV2 {
  definitions: Record<string, JsonObject>;
  paths: Record<string, JsonObject>;
}

const built = new WeakMap<ResourceRegistry, BuiltinV2>();

/**
 * The Swagger 2.0 definitions and paths of every built-in kind the registry serves (custom
 * resources are left to the CRD module): each served version's kind, its list kind, and every
 * type they reference. Built once per registry, since built-in kinds never change.
 */
export function builtinOpenApiV2(registry: ResourceRegistry): BuiltinV2 {
  const known = built.get(registry);
  if (known) return known;
  const v3: Record<string, JsonObject> = {};
  const paths: Record<string, JsonObject> = {};
  for (const rt of registry.all()) {
    if (rt.crdName !== undefined) continue;
    for (const v of rt.versions) {
      if (!v.served) continue;
      const kind = builtinComponents(rt.group, v.name, rt.kind);
      if (!kind) continue;
      addComponents(v3, kind.schemas);
      const list = rt.virtual ? undefined : builtinComponents(rt.group, v.name, rt.listKind);
      if (list) addComponents(v3, list.schemas);
      Object.assign(paths, builtinPaths(rt, v.name, kind.root, list?.root));
    }
  }
  const definitions: Record<string, JsonObject> = {};
  for (const name of Object.keys(v3).sort()) definitions[name] = toSwaggerSchema(v3[name]);
  const result = { definitions, paths };
  built.set(registry, result);
  return result;
}

/**
 * The whole `/openapi/v2` document: the custom resources' document (from the CRD module) with the
 * built-in kinds' definitions and paths added, sorted by name as kube-apiserver serves it.
 */
export function openApiV2Document(registry: ResourceRegistry, crdDocument: JsonObject): JsonObject {
  const builtin = builtinOpenApiV2(registry);
  const crdDefs = isObject(crdDocument.definitions) ? crdDocument.definitions : {};
  const crdPaths = isObject(crdDocument.paths) ? crdDocument.paths : {};
  const definitions: JsonObject = { ...builtin.definitions, ...crdDefs };
  const paths: JsonObject = { ...builtin.paths, ...crdPaths };
  return {
    ...crdDocument,
    paths: sortKeys(paths),
    definitions: sortKeys(definitions),
  };
}

function sortKeys(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

/** The body and media type of one `/openapi/v2` answer. */
export interface OpenApiV2Answer {
  contentType: string;
  body: Buffer;
}

interface Encoded {
  key: string;
  doc: JsonObject;
  json?: Buffer;
  proto?: Buffer;
}

const encoded = new WeakMap<ResourceRegistry, Encoded>();

/**
 * The `/openapi/v2` answer for an `Accept` header: gnostic protobuf when the client asks for
 * {@link OPENAPI_V2_PROTOBUF} (client-go, and so kubectl, always does), JSON otherwise. Each
 * encoding of the last document is kept while the custom resources' part stays the same.
 */
export function openApiV2Answer(
  registry: ResourceRegistry,
  crdDocument: JsonObject,
  accept: string,
): OpenApiV2Answer {
  const key = JSON.stringify(crdDocument);
  let e = encoded.get(registry);
  if (e?.key !== key) {
    e = { key, doc: openApiV2Document(registry, crdDocument) };
    encoded.set(registry, e);
  }
  const proto =
    accept.includes(OPENAPI_V2_PROTOBUF) ||
    accept.includes(OPENAPI_V2_PROTOBUF_RETURNED) ||
    (/protobuf/.test(accept) && !/json/.test(accept));
  if (proto) {
    e.proto ??= Buffer.from(encodeOpenApiV2(e.doc));
    return { contentType: OPENAPI_V2_PROTOBUF_RETURNED, body: e.proto };
  }
  e.json ??= Buffer.from(JSON.stringify(e.doc));
  return { contentType: 'application/json', body: e.json };
}
