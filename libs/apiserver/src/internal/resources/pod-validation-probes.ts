import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { forbidden, invalid, nonNegative, notSupported, regexError, required } from './field-causes.js';

// A container's probes and lifecycle hooks as kube-apiserver 1.32 validates them after defaulting
// (pkg/apis/core/validation validateProbe, validateLivenessProbe, validateReadinessProbe,
// validateStartupProbe, validateHandler, validateHTTPGetAction, ValidatePortNumOrName,
// validateLifecycle; the init container rules of validateInitContainers). The probe defaults
// (timeoutSeconds 1, periodSeconds 10, successThreshold 1, failureThreshold 3, httpGet path `/` and
// scheme HTTP) are filled in first, so a minimal probe passes.

/** validation.IsValidPortNum's message (InclusiveRangeError(1, 65535)). */
export const PORT_RANGE = 'must be between 1 and 65535, inclusive';

/** validation.IsValidPortName (an IANA service name). */
export function portNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name))
    problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) problems.push('must contain at least one letter (a-z)');
  if (name.includes('--')) problems.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems;
}

/**
 * ValidatePortNumOrName: a number (an absent IntOrString is the number 0) in 1..65535, or an IANA
 * service name.
 */
export function portNumOrNameCauses(port: unknown, path: string): StatusCause[] {
  if (typeof port === 'string') return portNameProblems(port).map((m) => invalid(path, port, m));
  const n = typeof port === 'number' ? port : 0;
  return n >= 1 && n <= 65535 ? [] : [invalid(path, n, PORT_RANGE)];
}

const HTTP_HEADER_FMT = '[-A-Za-z0-9]+';
const HTTP_SCHEMES = ['HTTP', 'HTTPS'] as const;

function httpGetCauses(get: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof get.path !== 'string' || get.path === '') causes.push(required(`${path}.path`));
  causes.push(...portNumOrNameCauses(get.port, `${path}.port`));
  const scheme = typeof get.scheme === 'string' ? get.scheme : '';
  if (!(HTTP_SCHEMES as readonly string[]).includes(scheme))
    causes.push(notSupported(`${path}.scheme`, scheme, HTTP_SCHEMES));
  if (Array.isArray(get.httpHeaders))
    for (const header of get.httpHeaders) {
      const name = isObject(header) && typeof header.name === 'string' ? header.name : '';
      if (!new RegExp(`^${HTTP_HEADER_FMT}$`).test(name))
        causes.push(
          invalid(
            `${path}.httpHeaders`,
            name,
            regexError(
              "a valid HTTP header must consist of alphanumeric characters or '-'",
              HTTP_HEADER_FMT,
              'X-Header-Name',
            ),
          ),
        );
    }
  return causes;
}

/** A handler's actions in kube's order: a probe has grpc, a lifecycle hook sleep. */
const PROBE_ACTIONS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;
const LIFECYCLE_ACTIONS = ['exec', 'httpGet', 'tcpSocket', 'sleep'] as const;

/** validateHandler: exactly one action, each action's own fields. */
function handlerCauses(handler: JsonObject, actions: readonly string[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  for (const action of actions) {
    const value = handler[action];
    if (value === undefined || value === null) continue;
    const at = `${path}.${action}`;
    if (count > 0) {
      causes.push(forbidden(at, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    const body = isObject(value) ? value : {};
    switch (action) {
      case 'exec':
        if (!Array.isArray(body.command) || body.command.length === 0) causes.push(required(`${at}.command`));
        break;
      case 'httpGet':
        causes.push(...httpGetCauses(body, at));
        break;
      case 'tcpSocket':
        causes.push(...portNumOrNameCauses(body.port, `${at}.port`));
        break;
      case 'grpc':
        causes.push(...portNumOrNameCauses(typeof body.port === 'number' ? body.port : 0, `${at}.port`));
        break;
      // sleep's bounds (0 < seconds <= terminationGracePeriodSeconds) are not checked here
    }
  }
  if (count === 0) causes.push(required(path, 'must specify a handler type'));
  return causes;
}

type ProbeKind = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

/** validateProbe and the rule of its kind (liveness and startup: successThreshold 1; readiness: no grace period). */
function probeCauses(probe: JsonObject, kind: ProbeKind, path: string): StatusCause[] {
  const causes = handlerCauses(probe, PROBE_ACTIONS, path);
  for (const key of [
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
  ])
    causes.push(...nonNegative(probe[key], `${path}.${key}`));
  const grace = probe.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace <= 0)
    causes.push(invalid(`${path}.terminationGracePeriodSeconds`, grace, 'must be greater than 0'));
  if (kind !== 'readinessProbe') {
    const success = typeof probe.successThreshold === 'number' ? probe.successThreshold : 0;
    if (success !== 1) causes.push(invalid(`${path}.successThreshold`, success, 'must be 1'));
  } else if (typeof grace === 'number')
    causes.push(
      invalid(`${path}.terminationGracePeriodSeconds`, grace, 'must not be set for readinessProbes'),
    );
  return causes;
}

/** validateLifecycle, then the liveness, readiness and startup probes of a container at `path`. */
export function probeAndLifecycleCauses(c: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (isObject(c.lifecycle))
    for (const hook of ['postStart', 'preStop']) {
      const handler = c.lifecycle[hook];
      if (isObject(handler))
        causes.push(...handlerCauses(handler, LIFECYCLE_ACTIONS, `${path}.lifecycle.${hook}`));
    }
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    const probe = c[kind];
    if (isObject(probe)) causes.push(...probeCauses(probe, kind, `${path}.${kind}`));
  }
  return causes;
}

/**
 * What validateInitContainers adds for an init container: a restartPolicy of Always only (a sidecar),
 * and, unless it is a sidecar, no lifecycle hooks or probes; a sidecar's are validated as a
 * container's. Regular containers may not set restartPolicy (validateContainers).
 */
export function initContainerCauses(c: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const policy = c.restartPolicy;
  if (typeof policy === 'string' && policy !== 'Always')
    causes.push(notSupported(`${path}.restartPolicy`, policy, ['Always']));
  if (policy === 'Always') return [...causes, ...probeAndLifecycleCauses(c, path)];
  for (const key of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'])
    if (c[key] !== undefined && c[key] !== null)
      causes.push(
        forbidden(`${path}.${key}`, 'may not be set for init containers without restartPolicy=Always'),
      );
  return causes;
}

/** validateContainers' rule for a regular container's restartPolicy. */
export function regularContainerPolicyCauses(c: JsonObject, path: string): StatusCause[] {
  return c.restartPolicy !== undefined && c.restartPolicy !== null
    ? [forbidden(`${path}.restartPolicy`, 'may not be set for non-init containers')]
    : [];
}
