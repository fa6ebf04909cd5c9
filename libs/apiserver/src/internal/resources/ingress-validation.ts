import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { validateName } from '../storage/names.js';
import { invalid, objects, regexError, required } from './field-causes.js';
import { portNameProblems } from './workload-validation.js';

// What kube-apiserver 1.32 refuses in an Ingress's backends and paths beyond their schema types
// (pkg/apis/networking/validation ValidateIngressSpec, validateHTTPIngressRuleValue,
// validateHTTPIngressPath, validateIngressBackend for networking.k8s.io/v1), with kube's paths and
// wording. The paths' pathType is checked by validateIngressPathTypes (ingress-paths.ts).

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** apivalidation.ValidateServiceName (NameIsDNS1035Label) of a backend's Service. */
function serviceNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 63) problems.push('must be no more than 63 characters');
  if (!DNS1035.test(name))
    problems.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        '[a-z]([-a-z0-9]*[a-z0-9])?',
        'my-name',
        'abc-123',
      ),
    );
  return problems;
}

/** validateIngressBackend: a service (a name and a port name or number) or a resource, not both. */
function backendCauses(backend: JsonObject, path: string): StatusCause[] {
  const service = isObject(backend.service) ? backend.service : undefined;
  const resource = isObject(backend.resource) ? backend.resource : undefined;
  if (service && resource) return [invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) {
    const causes: StatusCause[] = [];
    for (const key of ['kind', 'name']) {
      const v = typeof resource[key] === 'string' ? resource[key] : '';
      if (v === '') causes.push(required(`${path}.resource.${key}`));
      else causes.push(...validateName(v, 'path', `${path}.resource.${key}`));
    }
    return causes;
  }
  if (!service) return [invalid(path, '', 'resource or service backend is required')];
  const causes: StatusCause[] = [];
  const name = typeof service.name === 'string' ? service.name : '';
  if (name === '') causes.push(required(`${path}.service.name`));
  else for (const m of serviceNameProblems(name)) causes.push(invalid(`${path}.service.name`, name, m));
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

/**
 * ValidateIngressSpec's backends and paths: a default backend or rules, each rule's http paths
 * present, each path absolute (for Exact and Prefix, and ImplementationSpecific when set), each
 * backend valid.
 */
export function ingressCauses(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const rules = objects(spec.rules);
  const defaultBackend = isObject(spec.defaultBackend) ? spec.defaultBackend : undefined;
  if (rules.length === 0 && !defaultBackend)
    causes.push(invalid('spec', spec.rules ?? null, 'either `defaultBackend` or `rules` must be specified'));
  if (defaultBackend) causes.push(...backendCauses(defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    if (!isObject(rule.http)) return;
    const at = `spec.rules[${i}].http`;
    const paths = objects(rule.http.paths);
    if (paths.length === 0) causes.push(required(`${at}.paths`));
    paths.forEach((p, j) => {
      const pathAt = `${at}.paths[${j}]`;
      const value = typeof p.path === 'string' ? p.path : '';
      const checked =
        p.pathType === 'Exact' ||
        p.pathType === 'Prefix' ||
        (p.pathType === 'ImplementationSpecific' && value !== '');
      if (checked && !value.startsWith('/'))
        causes.push(invalid(`${pathAt}.path`, value, 'must be an absolute path'));
      causes.push(...backendCauses(isObject(p.backend) ? p.backend : {}, `${pathAt}.backend`));
    });
  });
  return causes;
}
