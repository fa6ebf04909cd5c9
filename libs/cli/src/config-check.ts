import type { TosdkConfig } from './config.js';
import { TosdkCliError } from './errors.js';

// The name rules of k8s.io/apimachinery/pkg/util/validation (IsDNS1123Subdomain, IsDNS1123Label,
// IsDNS1035Label, IsQualifiedName, IsValidLabelValue), which kube-apiserver applies to the objects
// the configuration's values are written into.
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

const isSubdomain = (s: string) => s.length <= 253 && s.split('.').every((part) => DNS1123_LABEL.test(part));
const isLabel = (s: string) => s.length <= 63 && DNS1123_LABEL.test(s);
const isLabelValue = (s: string) => s === '' || (s.length <= 63 && LABEL_NAME.test(s));
const isLabelKey = (s: string) => {
  const slash = s.lastIndexOf('/');
  const [prefix, name] = slash < 0 ? [undefined, s] : [s.slice(0, slash), s.slice(slash + 1)];
  return (prefix === undefined || isSubdomain(prefix)) && name.length <= 63 && LABEL_NAME.test(name);
};
const isPort = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535;

const SUBDOMAIN =
  'lower-case letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters';
const LABEL =
  'lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters';

/** Whether a value is a kind (`defineResource`, `ResourceTypes`): what the generators read of one. */
const isResourceType = (value: unknown): boolean => {
  const t = value as Record<string, unknown> | null | undefined;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t['group'] === 'string' &&
    typeof t['version'] === 'string' &&
    typeof t['kind'] === 'string' &&
    typeof t['plural'] === 'string' &&
    typeof t['namespaced'] === 'boolean'
  );
};

/** What a value is, for a message. */
const describeValue = (value: unknown): string =>
  typeof value === 'function'
    ? `the class or function ${value.name || '(anonymous)'}`
    : value === null || value === undefined
      ? String(value)
      : typeof value === 'object'
        ? `an object that is not a kind (keys: ${Object.keys(value).slice(0, 5).join(', ') || 'none'})`
        : `the ${typeof value} ${JSON.stringify(value)}`;

/**
 * Checks the kinds of `resources`, and the values of a configuration that end up in object names,
 * namespaces, labels and ports, by the rules kube-apiserver applies to those objects, so a bad value fails `tosdk generate`
 * naming the setting instead of writing files that `kubectl apply` refuses.
 *
 * @throws TosdkCliError `InvalidConfig` naming the setting, its value, where it is written and what
 *   a valid value looks like.
 */
export function checkConfig(config: TosdkConfig): void {
  const fail = (what: string, rule: string): never => {
    throw new TosdkCliError('InvalidConfig', `tosdk config of ${config.name}: ${what}; ${rule}`);
  };
  const q = (v: unknown) => JSON.stringify(v);
  if (!isSubdomain(config.name))
    fail(
      `name ${q(config.name)} is not a valid object name (it names the ServiceAccount, roles, bindings and Deployment)`,
      `use ${SUBDOMAIN}`,
    );
  if (!isLabel(config.namespace))
    fail(`namespace ${q(config.namespace)} is not a valid namespace name`, `use ${LABEL}`);
  if (config.labels === undefined && !isLabelValue(config.name))
    fail(
      `name ${q(config.name)} is also the value of the label app.kubernetes.io/name, which allows at most 63 characters`,
      'shorten it, or set labels',
    );
  for (const [key, value] of Object.entries(config.labels ?? {})) {
    if (!isLabelKey(key))
      fail(
        `labels[${q(key)}] is not a valid label key`,
        'use an optional DNS subdomain prefix and "/", then at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
      );
    if (typeof value !== 'string' || !isLabelValue(value))
      fail(
        `labels[${q(key)}] has the value ${q(value)}, which is not a valid label value`,
        'use at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit, or ""',
      );
  }
  for (const [i, entry] of (config.resources ?? []).entries()) {
    if (isResourceType(entry)) continue;
    fail(
      `resources[${i}] is ${describeValue(entry)}, not a kind`,
      'list kinds declared with defineResource({ group, version, kind, schema }) from @tosdk/core (for a module, the kind it exports: resources: [Widget], not the module)',
    );
  }
  const lease = config.leaderElection?.leaseName;
  if (lease !== undefined && !isSubdomain(lease))
    fail(`leaderElection.leaseName ${q(lease)} is not a valid Lease name`, `use ${SUBDOMAIN}`);
  const electionNamespace = config.leaderElection?.leaseNamespace;
  if (electionNamespace !== undefined && !isLabel(electionNamespace))
    fail(
      `leaderElection.leaseNamespace ${q(electionNamespace)} is not a valid namespace name`,
      `use ${LABEL}`,
    );
  const leaseNamespace = config.sharding?.leaseNamespace;
  if (leaseNamespace !== undefined && !isLabel(leaseNamespace))
    fail(`sharding.leaseNamespace ${q(leaseNamespace)} is not a valid namespace name`, `use ${LABEL}`);
  const port = config.deployment?.port;
  if (port !== undefined && !isPort(port))
    fail(
      `deployment.port ${q(port)} is not a port number (the container port of the health endpoints)`,
      'use 1 to 65535',
    );
  const service = config.webhooks?.service;
  const serviceName = service?.name ?? `${config.name}-webhooks`;
  if (config.webhooks && !(serviceName.length <= 63 && DNS1035_LABEL.test(serviceName)))
    fail(
      `the webhooks' Service name ${q(serviceName)} (webhooks.service.name, else <name>-webhooks) is not a valid Service name`,
      'use lower-case letters, digits and "-", starting with a letter and ending with a letter or digit, at most 63 characters',
    );
  for (const key of ['port', 'targetPort'] as const) {
    const value = service?.[key];
    if (value !== undefined && !isPort(value))
      fail(`webhooks.service.${key} ${q(value)} is not a port number`, 'use 1 to 65535');
  }
}
