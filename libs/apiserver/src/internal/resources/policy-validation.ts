import type { JsonObject, StatusCause } from '../../types.js';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { isObject } from '../common/json.js';
import { objects } from './field-causes.js';
import { PORT_RANGE, portNameProblems } from './workload-validation.js';

// The validation kube-apiserver gives autoscaling/v2 HorizontalPodAutoscalers and policy/v1
// PodDisruptionBudgets beyond their schema types (pkg/apis/autoscaling/validation and
// pkg/apis/policy/validation): what an operator computing them wrong is refused on a cluster.

const invalid = (field: string, value: string, message: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${value}: ${message}`,
});
const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  field,
  message: 'Required value',
});

/** ValidateHorizontalPodAutoscalerSpec (minReplicas' lower bound 1: HPAScaleToZero is off by default). */
export function validateHorizontalPodAutoscaler(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const min = spec.minReplicas;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (typeof min === 'number' && min < 1)
    causes.push(invalid('spec.minReplicas', String(min), 'must be greater than or equal to 1'));
  if (max < 1) causes.push(invalid('spec.maxReplicas', String(max), 'must be greater than 0'));
  if (typeof min === 'number' && max < min)
    causes.push(invalid('spec.maxReplicas', String(max), 'must be greater than or equal to `minReplicas`'));
  const ref = isObject(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
  for (const key of ['kind', 'name']) {
    const value = ref[key];
    if (typeof value !== 'string' || value === '') causes.push(required(`spec.scaleTargetRef.${key}`));
  }
  return causes;
}

/** Go's `%#v` of an intstr.IntOrString, as field.Invalid prints one. */
function goIntOrString(v: number | string): string {
  return typeof v === 'number'
    ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`
    : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`;
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent of one field. */
function intOrPercentCauses(v: unknown, field: string): StatusCause[] {
  if (typeof v === 'number')
    return v < 0 ? [invalid(field, String(v), 'must be greater than or equal to 0')] : [];
  if (typeof v !== 'string') return [];
  if (!/^[0-9]+%$/.test(v)) {
    return [
      invalid(
        field,
        goIntOrString(v),
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ),
    ];
  }
  return Number(v.slice(0, -1)) > 100
    ? [invalid(field, goIntOrString(v), 'must not be greater than 100%')]
    : [];
}

/** ValidatePodDisruptionBudgetSpec: not both minAvailable and maxUnavailable; each a count or a percent up to 100%. */
export function validatePodDisruptionBudget(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    // kube prints the whole spec struct here (with pointers); its fields are what matters
    causes.push(
      invalid(
        'spec',
        'policy.PodDisruptionBudgetSpec{...}',
        'minAvailable and maxUnavailable cannot be both set',
      ),
    );
  }
  causes.push(...intOrPercentCauses(spec.minAvailable, 'spec.minAvailable'));
  causes.push(...intOrPercentCauses(spec.maxUnavailable, 'spec.maxUnavailable'));
  return causes;
}

// ---- NetworkPolicy (pkg/apis/networking/validation ValidateNetworkPolicySpec) ----

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

const quoted = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? '');
const notSupported = (field: string, value: unknown, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${quoted(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});

/** validation.IsValidPortNum. */
function portNumberProblems(n: number): string[] {
  return n >= 1 && n <= 65535 ? [] : [PORT_RANGE];
}

/** ValidateNetworkPolicyPort. */
function networkPolicyPortCauses(port: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol as string))
    causes.push(notSupported(`${path}.protocol`, port.protocol, PROTOCOLS));
  const end = port.endPort;
  if (typeof port.port === 'number') {
    for (const p of portNumberProblems(port.port)) causes.push(invalid(`${path}.port`, String(port.port), p));
    if (typeof end === 'number') {
      if (end < port.port)
        causes.push(invalid(`${path}.endPort`, String(end), 'must be greater than or equal to `port`'));
      for (const p of portNumberProblems(end)) causes.push(invalid(`${path}.endPort`, String(end), p));
    }
  } else if (typeof port.port === 'string') {
    if (end !== undefined)
      causes.push(invalid(`${path}.endPort`, quoted(end), 'may not be specified when `port` is non-numeric'));
    for (const p of portNameProblems(port.port))
      causes.push(invalid(`${path}.port`, JSON.stringify(port.port), p));
  } else if (end !== undefined) {
    causes.push(invalid(`${path}.endPort`, quoted(end), 'may not be specified when `port` is not specified'));
  }
  return causes;
}

/** An IP and prefix length (ParseCIDRSloppy: IPv4 parts may have leading zeros); undefined when not a CIDR. */
function parseCidr(cidr: string): { ip: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const slash = cidr.indexOf('/');
  if (slash < 0) return undefined;
  const bits = cidr.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  let ip = cidr.slice(0, slash);
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip))
    ip = ip
      .split('.')
      .map((o) => String(Number(o)))
      .join('.');
  const family = isIPv4(ip) ? 'ipv4' : isIPv6(ip) ? 'ipv6' : undefined;
  if (family === undefined || prefix > (family === 'ipv4' ? 32 : 128)) return undefined;
  return { ip, prefix, family };
}

const CIDR_PROBLEM = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** ValidateIPBlock: a valid cidr; each except a valid CIDR strictly inside it. */
function ipBlockCauses(block: JsonObject, path: string): StatusCause[] {
  const cidr = typeof block.cidr === 'string' ? block.cidr : '';
  if (cidr === '') return [required(`${path}.cidr`)];
  const outer = parseCidr(cidr);
  if (outer === undefined) return [invalid(`${path}.cidr`, JSON.stringify(cidr), CIDR_PROBLEM)];
  const inside = new BlockList();
  inside.addSubnet(outer.ip, outer.prefix, outer.family);
  const causes: StatusCause[] = [];
  const except = Array.isArray(block.except) ? block.except : [];
  except.forEach((e, i) => {
    const text = typeof e === 'string' ? e : '';
    const inner = parseCidr(text);
    if (inner === undefined) causes.push(invalid(`${path}.except[${i}]`, JSON.stringify(text), CIDR_PROBLEM));
    else if (
      inner.family !== outer.family ||
      !inside.check(inner.ip, inner.family) ||
      inner.prefix <= outer.prefix
    )
      causes.push(invalid(`${path}.except[${i}]`, JSON.stringify(text), 'must be a strict subset of `cidr`'));
  });
  return causes;
}

/** ValidateNetworkPolicyPeer: one peer at least; an ipBlock alone. */
function peerCauses(peer: JsonObject, path: string): StatusCause[] {
  const kinds = ['podSelector', 'namespaceSelector', 'ipBlock'].filter((k) => peer[k] !== undefined);
  const causes = isObject(peer.ipBlock) ? ipBlockCauses(peer.ipBlock, `${path}.ipBlock`) : [];
  if (kinds.length === 0)
    causes.push({
      reason: 'FieldValueRequired',
      field: path,
      message: 'Required value: must specify a peer',
    });
  else if (kinds.length > 1 && peer.ipBlock !== undefined)
    causes.push({
      reason: 'FieldValueForbidden',
      field: path,
      message: 'Forbidden: may not specify both ipBlock and another peer',
    });
  return causes;
}

/**
 * ValidateNetworkPolicySpec: ports (protocol, number or IANA name, endPort), peers and policy
 * types. (Label selectors are not validated here.)
 */
export function validateNetworkPolicy(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [direction, peersKey] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    objects(spec[direction]).forEach((rule, i) => {
      const path = `spec.${direction}[${i}]`;
      objects(rule.ports).forEach((p, j) =>
        causes.push(...networkPolicyPortCauses(p, `${path}.ports[${j}]`)),
      );
      objects(rule[peersKey]).forEach((p, j) => causes.push(...peerCauses(p, `${path}.${peersKey}[${j}]`)));
    });
  }
  const types = Array.isArray(spec.policyTypes) ? spec.policyTypes : [];
  if (types.length > 2) {
    causes.push(
      invalid('spec.policyTypes', JSON.stringify(types), 'may not specify more than two policyTypes'),
    );
    return causes;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t as string))
      causes.push(notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return causes;
}
