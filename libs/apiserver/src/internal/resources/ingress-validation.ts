import { isIP } from 'node:net';
import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { validateName } from '../storage/names.js';
import { isDns1035Label, isDns1123Subdomain } from '../../crd/name-validation.js';
import { invalid, objects, regexError, required } from './field-causes.js';
import { portNameProblems } from './workload-validation.js';

// What kube-apiserver 1.32 refuses in an Ingress's backends and paths beyond their schema types
// (pkg/apis/networking/validation ValidateIngressSpec, validateHTTPIngressRuleValue,
// validateHTTPIngressPath, validateIngressBackend for networking.k8s.io/v1), with kube's paths and
// wording. The paths' pathType is checked by validateIngressPathTypes (ingress-paths.ts).

/** validateIngressBackend: a service (a name and a port name or number) or a resource, not both. */
function backendCauses(backend: JsonObject, path: string): StatusCause[] {
  const service = isObject(backend.service) ? backend.service : undefined;
  const resource = isObject(backend.resource) ? backend.resource : undefined;
  if (service && resource) return [invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) {
    const causes: StatusCause[] = [];
    const group = resource.apiGroup;
    if (typeof group === 'string')
      for (const m of hostProblems(group)) causes.push(invalid(`${path}.resource.apiGroup`, group, m));
    for (const key of ['kind', 'name']) {
      const v = typeof resource[key] === 'string' ? resource[key] : '';
      if (v === '') causes.push(required(`${path}.resource.${key}`, `${key} is required`));
      else causes.push(...validateName(v, 'path', `${path}.resource.${key}`));
    }
    return causes;
  }
  if (!service) return [invalid(path, '', 'resource or service backend is required')];
  const causes: StatusCause[] = [];
  const name = typeof service.name === 'string' ? service.name : '';
  if (name === '') causes.push(required(`${path}.service.name`));
  else for (const m of isDns1035Label(name)) causes.push(invalid(`${path}.service.name`, name, m));
  const port = isObject(service.port) ? service.port : {};
  const portName = typeof port.name === 'string' ? port.name : '';
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName !== '' && portNumber !== 0)
    causes.push(invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '')
    for (const m of portNameProblems(portName))
      causes.push(invalid(`${path}.service.port.name`, portName, m));
  else if (portNumber !== 0) {
    if (portNumber < 1 || portNumber > 65535)
      causes.push(
        invalid(`${path}.service.port.number`, portNumber, 'must be between 1 and 65535, inclusive'),
      );
  } else causes.push(required(path, 'port name or number is required'));
  return causes;
}

const SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const WILDCARD_RE = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsDNS1123Subdomain, or IsWildcardDNS1123Subdomain for a host with a `*`. */
function hostProblems(host: string): string[] {
  if (!host.includes('*')) return isDns1123Subdomain(host);
  const problems: string[] = [];
  if (host.length > 253) problems.push('must be no more than 253 characters');
  if (!WILDCARD_RE.test(host))
    problems.push(
      regexError(
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
        `\\*\\.${SUBDOMAIN_FMT}`,
        '*.example.com',
      ),
    );
  return problems;
}

const INVALID_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_SUFFIXES = ['/..', '/.'];

/** validateHTTPIngressPath's path rules for a known pathType (a missing or unknown one: ingress-paths.ts). */
function pathCauses(p: JsonObject, at: string): StatusCause[] {
  const value = typeof p.path === 'string' ? p.path : '';
  const causes: StatusCause[] = [];
  if (p.pathType === 'Exact' || p.pathType === 'Prefix') {
    if (!value.startsWith('/')) causes.push(invalid(`${at}.path`, value, 'must be an absolute path'));
    for (const seq of INVALID_SEQUENCES)
      if (value.includes(seq)) causes.push(invalid(`${at}.path`, value, `must not contain '${seq}'`));
    for (const suffix of INVALID_SUFFIXES)
      if (value.endsWith(suffix)) causes.push(invalid(`${at}.path`, value, `cannot end with '${suffix}'`));
  } else if (p.pathType === 'ImplementationSpecific' && value !== '' && !value.startsWith('/'))
    causes.push(invalid(`${at}.path`, value, 'must be an absolute path'));
  return causes;
}

/**
 * ValidateIngressSpec's rules beyond pathType: a default backend or rules, each rule's host (a DNS
 * name, not an IP), its http paths (present, absolute, no traversal) and their backends, the
 * default backend, and the TLS hosts and secret names.
 */
export function ingressCauses(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const rules = objects(spec.rules);
  const defaultBackend = isObject(spec.defaultBackend) ? spec.defaultBackend : undefined;
  if (rules.length === 0 && !defaultBackend)
    causes.push(invalid('spec', spec.rules ?? null, 'either `defaultBackend` or `rules` must be specified'));
  if (defaultBackend) causes.push(...backendCauses(defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const host = typeof rule.host === 'string' ? rule.host : '';
    if (host !== '') {
      if (isIP(host) !== 0)
        causes.push(invalid(`spec.rules[${i}].host`, host, 'must be a DNS name, not an IP address'));
      for (const m of hostProblems(host)) causes.push(invalid(`spec.rules[${i}].host`, host, m));
    }
    if (!isObject(rule.http)) return;
    const at = `spec.rules[${i}].http`;
    const paths = objects(rule.http.paths);
    if (paths.length === 0) causes.push(required(`${at}.paths`));
    paths.forEach((p, j) => {
      const pathAt = `${at}.paths[${j}]`;
      // kube stops at a path without a pathType
      if (p.pathType === undefined || p.pathType === null || p.pathType === '') return;
      causes.push(...pathCauses(p, pathAt));
      causes.push(...backendCauses(isObject(p.backend) ? p.backend : {}, `${pathAt}.backend`));
    });
  });
  objects(spec.tls).forEach((tls, i) => {
    (Array.isArray(tls.hosts) ? tls.hosts : []).forEach((h, j) => {
      if (typeof h === 'string')
        for (const m of hostProblems(h)) causes.push(invalid(`spec.tls[${i}].hosts[${j}]`, h, m));
    });
    const secretName = typeof tls.secretName === 'string' ? tls.secretName : '';
    if (secretName !== '') causes.push(...validateName(secretName, 'subdomain', `spec.tls[${i}].secretName`));
  });
  return causes;
}
