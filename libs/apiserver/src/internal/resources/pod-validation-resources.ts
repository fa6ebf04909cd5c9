import type { StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { compareQuantities, isQuantity, parseQuantity } from '../../quantity/quantity.js';
import { labelKeyErrors } from '../../selectors/label-validation.js';
import { invalid, required } from './field-causes.js';

// A container's resources as kube-apiserver 1.32 validates them (pkg/apis/core/validation
// ValidateResourceRequirements, validateContainerResourceName, validateResourceName,
// ValidateResourceQuantityValue; pkg/apis/core/helper IsStandardResourceName,
// IsStandardContainerResourceName, IsNativeResource, IsExtendedResourceName, IsOvercommitAllowed).
// The quantities were canonicalized before this runs, so they print as kube prints them. The
// divisibility of hugepages values and resource claims are not checked.

/** helper.standardResources (IsStandardResourceName, with the quota's hugepages names). */
const STANDARD_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'quotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');

/** helper.IsNativeResource: unprefixed, or in kubernetes.io. */
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');

/** helper.IsExtendedResourceName: not native, not `requests.`-prefixed, `requests.<name>` qualified. */
function isExtended(name: string): boolean {
  if (isNative(name) || name.startsWith('requests.')) return false;
  return labelKeyErrors(`requests.${name}`).length === 0;
}

/** helper.IsOvercommitAllowed: native resources but hugepages. */
const overcommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

/** validateContainerResourceName at `path` (`resources.limits[name]`). */
function resourceNameCauses(name: string, path: string): StatusCause[] {
  const qualified = labelKeyErrors(name).map((m) => invalid(path, name, m));
  if (qualified.length > 0) return qualified;
  const causes: StatusCause[] = [];
  if (!name.includes('/')) {
    if (!STANDARD_RESOURCES.has(name) && !isHugePages(name) && !name.startsWith('requests.hugepages-'))
      causes.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
    if (!['cpu', 'memory', 'ephemeral-storage'].includes(name) && !isHugePages(name))
      causes.push(invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtended(name))
    causes.push(invalid(path, name, "doesn't follow extended resource name standard"));
  return causes;
}

/** ValidateResourceQuantityValue: not negative; extended resources whole. */
function quantityCauses(name: string, value: string, path: string): StatusCause[] {
  if (!isQuantity(value)) return [];
  const q = parseQuantity(value);
  const causes: StatusCause[] = [];
  if (compareQuantities(q, parseQuantity('0')) < 0)
    causes.push(invalid(path, value, 'must be greater than or equal to 0'));
  if (isExtended(name) && q.nanos % 1_000_000_000n !== 0n)
    causes.push(invalid(path, value, 'must be an integer'));
  return causes;
}

const entries = (v: unknown): [string, string][] =>
  isObject(v) ? Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string') : [];

/**
 * ValidateResourceRequirements at `path` (a container's `resources`): names and quantities of
 * limits and requests; a request within its limit, equal to it for resources that cannot be
 * overcommitted (extended resources, hugepages), which need a limit.
 */
export function resourceRequirementsCauses(resources: unknown, path: string): StatusCause[] {
  if (!isObject(resources)) return [];
  const causes: StatusCause[] = [];
  const limits = new Map(entries(resources.limits));
  for (const [name, q] of limits) {
    const at = `${path}.limits[${name}]`;
    causes.push(...resourceNameCauses(name, at), ...quantityCauses(name, q, at));
  }
  for (const [name, q] of entries(resources.requests)) {
    const at = `${path}.requests[${name}]`;
    causes.push(...resourceNameCauses(name, at), ...quantityCauses(name, q, at));
    const limit = limits.get(name);
    if (limit !== undefined) {
      if (!isQuantity(q) || !isQuantity(limit)) continue;
      const cmp = compareQuantities(parseQuantity(q), parseQuantity(limit));
      if (cmp !== 0 && !overcommitAllowed(name))
        causes.push(invalid(`${path}.requests`, q, `must be equal to ${name} limit of ${limit}`));
      else if (cmp > 0)
        causes.push(
          invalid(`${path}.requests`, q, `must be less than or equal to ${name} limit of ${limit}`),
        );
    } else if (!overcommitAllowed(name))
      causes.push(required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
  }
  return causes;
}
