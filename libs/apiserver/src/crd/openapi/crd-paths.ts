/**
 * The REST paths and operations of a custom resource in an OpenAPI document. kubectl reads them to
 * learn that the server validates fields itself (the `fieldValidation` parameter on PATCH) and which
 * patch types it accepts (no strategic merge patch for custom resources, so `kubectl apply` uses a
 * JSON merge patch).
 */
import type { JsonObject } from '../../types.js';
import type { CompiledCrd, CompiledVersion } from '../compile-crd.js';
import type { Dialect } from './crd-definitions.js';
import { definitionName } from './crd-definitions.js';
import { META } from './meta-schemas.js';

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

interface Param {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'boolean' | 'integer';
  description: string;
  required?: boolean;
}

const P = {
  name: { name: 'name', in: 'path', type: 'string', description: 'name of the resource', required: true },
  namespace: {
    name: 'namespace',
    in: 'path',
    type: 'string',
    description: 'object name and auth scope, such as for teams and projects',
    required: true,
  },
  pretty: {
    name: 'pretty',
    in: 'query',
    type: 'string',
    description: "If 'true', the output is pretty printed.",
  },
  dryRun: {
    name: 'dryRun',
    in: 'query',
    type: 'string',
    description: 'When present (All), modifications are not persisted.',
  },
  fieldManager: {
    name: 'fieldManager',
    in: 'query',
    type: 'string',
    description: 'The name of the actor making the change.',
  },
  fieldValidation: {
    name: 'fieldValidation',
    in: 'query',
    type: 'string',
    description: 'How the server treats unknown or duplicate fields: Ignore, Warn (the default) or Strict.',
  },
  force: {
    name: 'force',
    in: 'query',
    type: 'boolean',
    description: 'Force an apply over conflicting field owners.',
  },
  labelSelector: {
    name: 'labelSelector',
    in: 'query',
    type: 'string',
    description: 'Restrict the list by label.',
  },
  fieldSelector: {
    name: 'fieldSelector',
    in: 'query',
    type: 'string',
    description: 'Restrict the list by field.',
  },
  limit: { name: 'limit', in: 'query', type: 'integer', description: 'Maximum number of items in one page.' },
  continue: { name: 'continue', in: 'query', type: 'string', description: 'The token of the next page.' },
  resourceVersion: {
    name: 'resourceVersion',
    in: 'query',
    type: 'string',
    description: 'The resourceVersion to read at or watch from.',
  },
  watch: {
    name: 'watch',
    in: 'query',
    type: 'boolean',
    description: 'Watch for changes instead of listing.',
  },
} satisfies Record<string, Param>;

/** Builds the path items of one served version of a CRD. */
export function crdPaths(
  crd: CompiledCrd,
  version: CompiledVersion,
  dialect: Dialect,
  ref: (name: string) => string,
): Record<string, JsonObject> {
  const { group, names } = crd;
  const v = version.name;
  const kind = names.kind;
  const gvk = { group, version: v, kind };
  const objRef = ref(definitionName(group, v, kind));
  const listRef = ref(definitionName(group, v, names.listKind));
  const statusRef = ref(`${META}.Status`);
  const namespaced = crd.scope === 'Namespaced';
  const base = `/apis/${group}/${v}`;
  const coll = namespaced ? `${base}/namespaces/{namespace}/${names.plural}` : `${base}/${names.plural}`;
  const item = `${coll}/{name}`;
  const scopeParams: Param[] = namespaced ? [P.namespace] : [];
  const suffix = `${v.charAt(0).toUpperCase()}${v.slice(1)}${namespaced ? 'Namespaced' : ''}${kind}`;
  const groupId = group
    .split('.')
    .map((s, i) => (i === 0 ? s : s.charAt(0).toUpperCase() + s.slice(1)))
    .join('');

  const param = (p: Param): JsonObject =>
    dialect === 'v3'
      ? {
          name: p.name,
          in: p.in,
          description: p.description,
          ...(p.required ? { required: true } : {}),
          schema: { type: p.type, uniqueItems: true },
        }
      : {
          name: p.name,
          in: p.in,
          description: p.description,
          ...(p.required ? { required: true } : {}),
          type: p.type,
          uniqueItems: true,
        };
  const response = (schemaRef: string, description = 'OK'): JsonObject =>
    dialect === 'v3'
      ? {
          description,
          content: {
            'application/json': { schema: { $ref: schemaRef } },
            'application/yaml': { schema: { $ref: schemaRef } },
          },
        }
      : { description, schema: { $ref: schemaRef } };
  const body = (schemaRef: string, types: string[]): JsonObject =>
    dialect === 'v3'
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(types.map((t) => [t, { schema: { $ref: schemaRef } }])),
          },
        }
      : {
          parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: schemaRef } }],
          consumes: types,
        };
  const op = (
    action: string,
    id: string,
    query: Param[],
    responses: JsonObject,
    extra: JsonObject = {},
  ): JsonObject => {
    const bodyParams = Array.isArray(extra.parameters) ? (extra.parameters as JsonObject[]) : [];
    return {
      tags: [`${groupId}_${v}`],
      description: `${action} ${kind}`,
      operationId: `${action}${groupId.charAt(0).toUpperCase()}${groupId.slice(1)}${suffix}`,
      ...extra,
      parameters: [...bodyParams, ...query.map(param)],
      responses,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
    };
  };
  const writeParams = [P.dryRun, P.fieldManager, P.fieldValidation];
  const paths: Record<string, JsonObject> = {};
  paths[coll] = {
    parameters: scopeParams.map(param),
    get: op(
      'list',
      'list',
      [P.pretty, P.labelSelector, P.fieldSelector, P.limit, P.continue, P.resourceVersion, P.watch],
      { '200': response(listRef) },
    ),
    post: op(
      'post',
      'create',
      [P.pretty, ...writeParams],
      { '200': response(objRef), '201': response(objRef, 'Created') },
      body(objRef, ['application/json', 'application/yaml']),
    ),
    delete: op(
      'deletecollection',
      'deleteCollection',
      [P.pretty, P.dryRun, P.labelSelector, P.fieldSelector],
      { '200': response(statusRef) },
    ),
  };
  paths[item] = {
    parameters: [P.name, ...scopeParams].map(param),
    get: op('get', 'read', [P.pretty, P.resourceVersion], { '200': response(objRef) }),
    put: op(
      'put',
      'replace',
      [P.pretty, ...writeParams],
      { '200': response(objRef), '201': response(objRef, 'Created') },
      body(objRef, ['application/json', 'application/yaml']),
    ),
    patch: op(
      'patch',
      'patch',
      [P.pretty, ...writeParams, P.force],
      { '200': response(objRef), '201': response(objRef, 'Created') },
      body(ref(`${META}.Patch`), PATCH_TYPES),
    ),
    delete: op('delete', 'delete', [P.pretty, P.dryRun], {
      '200': response(objRef),
      '202': response(objRef, 'Accepted'),
    }),
  };
  if (namespaced) {
    paths[`${base}/${names.plural}`] = {
      get: op(
        'list',
        'listAllNamespaces',
        [P.pretty, P.labelSelector, P.fieldSelector, P.limit, P.continue, P.resourceVersion, P.watch],
        { '200': response(listRef) },
      ),
    };
  }
  if (version.statusSubresource) {
    paths[`${item}/status`] = {
      parameters: [P.name, ...scopeParams].map(param),
      get: op('get', 'readStatus', [P.pretty, P.resourceVersion], { '200': response(objRef) }),
      put: op(
        'put',
        'replaceStatus',
        [P.pretty, ...writeParams],
        { '200': response(objRef) },
        body(objRef, ['application/json', 'application/yaml']),
      ),
      patch: op(
        'patch',
        'patchStatus',
        [P.pretty, ...writeParams, P.force],
        { '200': response(objRef) },
        body(ref(`${META}.Patch`), PATCH_TYPES),
      ),
    };
  }
  if (version.scaleSubresource) {
    const scaleRef = ref('io.k8s.api.autoscaling.v1.Scale');
    const scaleGvk = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
    const scaleOp = (...args: Parameters<typeof op>): JsonObject => ({
      ...op(...args),
      'x-kubernetes-group-version-kind': scaleGvk,
    });
    paths[`${item}/scale`] = {
      parameters: [P.name, ...scopeParams].map(param),
      get: scaleOp('get', 'readScale', [P.pretty], { '200': response(scaleRef) }),
      put: scaleOp(
        'put',
        'replaceScale',
        [P.pretty, ...writeParams],
        { '200': response(scaleRef) },
        body(scaleRef, ['application/json', 'application/yaml']),
      ),
      patch: scaleOp(
        'patch',
        'patchScale',
        [P.pretty, ...writeParams, P.force],
        { '200': response(scaleRef) },
        body(ref(`${META}.Patch`), PATCH_TYPES),
      ),
    };
  }
  return paths;
}
