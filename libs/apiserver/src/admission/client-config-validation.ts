/**
 * Validation of an admission webhook's `clientConfig` as k8s.io/apiserver pkg/util/webhook
 * (ValidateWebhookURL with https forced, ValidateWebhookService) does it: the URL's scheme, host, user
 * information, query and fragment; the service's name, namespace, port and path segments.
 */
import type { StatusCause } from '../types.js';
import { isObject } from '../internal/common/json.js';
import { invalid, required } from '../crd/field-errors.js';
import { labelKeyErrors } from '../selectors/index.js';

const DESIRED = '; desired format: https://host[/path]';

/** A URL split as Go's url.Parse splits it (enough for the checks kube makes). */
function splitUrl(url: string): {
  scheme: string;
  user?: string;
  host: string;
  query: string;
  fragment: string;
} {
  let rest = url;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest)?.[1] ?? '';
  if (scheme) rest = rest.slice(scheme.length + 1);
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0];
    const at = authority.lastIndexOf('@');
    if (at >= 0) user = authority.slice(0, at);
    host = at >= 0 ? authority.slice(at + 1) : authority;
  }
  const out: { scheme: string; user?: string; host: string; query: string; fragment: string } = {
    scheme: scheme.toLowerCase(),
    host,
    query,
    fragment,
  };
  if (user !== undefined) out.user = user;
  return out;
}

/** kube's ValidateWebhookURL(path, url, forceHttps=true). */
export function validateWebhookUrl(url: string, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const u = splitUrl(url);
  if (u.scheme !== 'https')
    causes.push(invalid(field, u.scheme, `'https' is the only allowed URL scheme${DESIRED}`));
  if (u.host === '') causes.push(invalid(field, u.host, `host must be specified${DESIRED}`));
  if (u.user !== undefined)
    causes.push(invalid(field, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') causes.push(invalid(field, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query !== '') causes.push(invalid(field, u.query, 'query parameters are not permitted in the URL'));
  return causes;
}

/** IsDNS1123Subdomain's messages (label-validation words them for a label key's prefix). */
function subdomainErrors(value: string): string[] {
  return labelKeyErrors(`${value}/x`)
    .filter((m) => m.startsWith('prefix part '))
    .map((m) => m.slice('prefix part '.length));
}

/** kube's ValidateWebhookService for `clientConfig.service` (port defaulted to 443). */
export function validateWebhookService(value: unknown, field: string): StatusCause[] {
  const s = isObject(value) ? value : {};
  const causes: StatusCause[] = [];
  if (typeof s.name !== 'string' || s.name === '') causes.push(required(`${field}.name`));
  if (typeof s.namespace !== 'string' || s.namespace === '') causes.push(required(`${field}.namespace`));
  const port = s.port === undefined || s.port === null ? 443 : s.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    causes.push(invalid(`${field}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (typeof s.path !== 'string') return causes;
  const path = s.path;
  if (path === '/' || path === '') return causes;
  if (path === '//') {
    causes.push(invalid(`${field}.path`, path, 'segment[0] may not be empty'));
    return causes;
  }
  if (!path.startsWith('/')) causes.push(invalid(`${field}.path`, path, "must start with a '/'"));
  // as kube: the first character is dropped whatever it is, and one trailing '/' allowed
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') {
      causes.push(invalid(`${field}.path`, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const m of subdomainErrors(step)) causes.push(invalid(`${field}.path`, path, `segment[${i}]: ${m}`));
  });
  return causes;
}
