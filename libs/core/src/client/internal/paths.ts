import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import { resourceTypeName } from '../../api/resource-type.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClientUsageError } from '../errors.js';
import type { FieldValidation, WriteOptions } from '../types.js';

// URL paths and query strings of the API, and the small object helpers the client's methods share.

/** The object with `apiVersion` and `kind` of its type filled in when missing (a copy then). */
export function withKind<T extends KubernetesResource>(type: ResourceType<T>, obj: T): T;
export function withKind<T extends KubernetesResource>(
  type: ResourceType<T>,
  obj: T | undefined,
): T | undefined;
export function withKind<T extends KubernetesResource>(
  type: ResourceType<T>,
  obj: T | undefined,
): T | undefined {
  if (!obj || (obj.apiVersion !== undefined && obj.kind !== undefined)) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? type.apiVersion, kind: obj.kind ?? type.kind };
}

/**
 * The ID of an object.
 * @throws KubernetesClientUsageError when it has no name.
 */
export function idOf(obj: KubernetesResource): ResourceID {
  const name = obj?.metadata?.name;
  if (!name) throw new KubernetesClientUsageError('the object has no metadata.name');
  return new ResourceID(name, obj.metadata?.namespace || undefined);
}

/**
 * The namespace of a request: undefined for cluster-scoped kinds.
 * @throws KubernetesClientUsageError when a namespaced kind has none.
 */
export function requireNamespace(
  type: ResourceType,
  namespace: string | undefined,
  verb: string,
): string | undefined {
  if (!type.namespaced) return undefined;
  if (!namespace) {
    throw new KubernetesClientUsageError(`cannot ${verb} a ${resourceTypeName(type)} without a namespace`);
  }
  return namespace;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupPath(type: ResourceType): string {
  return type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
}

/**
 * Why `segment` cannot be a name or namespace in a URL path, or undefined when it can (kube's
 * IsValidPathSegmentName, which client-go's Request.Name and Namespace check before sending):
 * `.` and `..` are dot segments a proxy may resolve (`configmaps/..` becomes the collection), and a
 * `/` or `%` may be decoded into another path on the way. The API server stores no such name.
 */
function pathSegmentProblem(segment: string): string | undefined {
  if (segment === '.' || segment === '..') return `may not be '${segment}'`;
  if (segment.includes('/')) return "may not contain '/'";
  if (segment.includes('%')) return "may not contain '%'";
  return undefined;
}

/** `segment` percent-encoded for a path, after checking it can be one. */
function pathSegment(type: ResourceType, what: 'name' | 'namespace', segment: string): string {
  const problem = pathSegmentProblem(segment);
  if (problem !== undefined) {
    throw new KubernetesClientUsageError(
      `invalid ${what} ${JSON.stringify(segment)} for a ${resourceTypeName(type)} request: a ${what} ${problem} ` +
        '(Kubernetes names are path segments); pass the name of an existing object',
    );
  }
  return encodeURIComponent(segment);
}

/** The collection URL, in a namespace or across all. */
export function collectionPath(type: ResourceType, namespace: string | undefined): string {
  if (type.namespaced && namespace) {
    return `${groupPath(type)}/namespaces/${pathSegment(type, 'namespace', namespace)}/${type.plural}`;
  }
  return `${groupPath(type)}/${type.plural}`;
}

/**
 * The URL of one object.
 * @throws KubernetesClientUsageError without a name, or without a namespace for a namespaced kind.
 */
export function itemPath(type: ResourceType, id: ResourceID): string {
  if (!id?.name) throw new KubernetesClientUsageError(`a ${resourceTypeName(type)} request needs a name`);
  const namespace = requireNamespace(type, id.namespace, 'address');
  return `${collectionPath(type, namespace)}/${pathSegment(type, 'name', id.name)}`;
}

/** The query string of a write (`fieldManager`, `dryRun=All`, `fieldValidation`). */
export function writeQuery(options: WriteOptions): string {
  const fieldManager = options.fieldManager;
  if (options.dryRun || fieldManager === undefined || options.fieldValidation !== undefined) {
    return queryString({
      fieldManager,
      dryRun: options.dryRun ? 'All' : undefined,
      fieldValidation: options.fieldValidation,
    });
  }
  return remembered(WRITE_QUERIES, fieldManager, () => queryString({ fieldManager }));
}

/** The query string of a server-side apply (`fieldManager`, `force`, `dryRun=All`, `fieldValidation`). */
export function applyQuery(
  fieldManager: string,
  force: boolean,
  dryRun: boolean,
  fieldValidation?: FieldValidation,
): string {
  if (dryRun || fieldValidation !== undefined)
    return queryString({ fieldManager, force, dryRun: dryRun ? 'All' : undefined, fieldValidation });
  return remembered(force ? FORCED_APPLY_QUERIES : APPLY_QUERIES, fieldManager, () =>
    queryString({ fieldManager, force }),
  );
}

// An operator writes with a handful of field managers: their query strings are built once
// (building one per request was a measurable share of a write's CPU in the widgets benchmark).
const WRITE_QUERIES = new Map<string, string>();
const APPLY_QUERIES = new Map<string, string>();
const FORCED_APPLY_QUERIES = new Map<string, string>();
/** Field managers remembered per kind of query at most (then the map starts over). */
const MAX_REMEMBERED = 64;

function remembered(cache: Map<string, string>, key: string, make: () => string): string {
  let query = cache.get(key);
  if (query === undefined) {
    if (cache.size >= MAX_REMEMBERED) cache.clear();
    query = make();
    cache.set(key, query);
  }
  return query;
}

/** A query string (`?a=1&b=x`) of the defined, non-empty parameters; `''` when none. */
export function queryString(params: Record<string, string | number | boolean | undefined>): string {
  let out = '';
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    out += `${out ? '&' : '?'}${key}=${encodeURIComponent(String(value))}`;
  }
  return out;
}
