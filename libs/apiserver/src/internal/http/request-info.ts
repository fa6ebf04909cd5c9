/** What a request path addresses. */
export interface ResourceRequestInfo {
  isResource: true;
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
  /** Legacy `/watch/` path prefix. */
  watchPath: boolean;
  verb: string;
}

/** A path outside the resource API (discovery, health, openapi). */
export interface NonResourceRequestInfo {
  isResource: false;
  path: string;
  verb: string;
}

/** What a request addresses: a resource or a non-resource path. */
export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Parses a request path as kube-apiserver's RequestInfoFactory does. */
export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const parts = pathSegments(pathname);
  const nonResource = (): NonResourceRequestInfo => ({
    isResource: false,
    path: pathname,
    verb: method.toLowerCase(),
  });
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === 'api') {
    if (parts.length < 3) return nonResource();
    group = '';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length < 4) return nonResource();
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else return nonResource();
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
    else {
      // /namespaces/{name}[/status]: the namespace object itself
      rest = ['namespaces', ...rest.slice(1)];
      namespace = undefined;
    }
  }
  const resource = rest[0] ?? '';
  const name = rest[1];
  const subresource = rest[2];
  if (rest.length > 3 || resource === '') return nonResource();
  let verb: string;
  switch (method) {
    case 'GET':
    case 'HEAD': {
      const watching = watchPath || parseBool(query.get('watch') ?? '') === true;
      verb = watching ? 'watch' : name === undefined ? 'list' : 'get';
      break;
    }
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      verb = method.toLowerCase();
  }
  return { isResource: true, group, version, namespace, resource, name, subresource, watchPath, verb };
}

/** The non-empty segments of a path, percent-decoded (a segment that does not decode stays as it is). */
function pathSegments(pathname: string): string[] {
  const parts: string[] = [];
  const decode = pathname.includes('%');
  let start = 0;
  for (;;) {
    const end = pathname.indexOf('/', start);
    const segment = end < 0 ? pathname.slice(start) : pathname.slice(start, end);
    if (segment !== '') parts.push(decode ? safeDecode(segment) : segment);
    if (end < 0) return parts;
    start = end + 1;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Parses a boolean as Go's strconv.ParseBool does; undefined when it is not one. */
export function parseBool(v: string): boolean | undefined {
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  return undefined;
}
