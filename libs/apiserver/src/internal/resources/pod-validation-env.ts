import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { compareQuantities, isQuantity, parseQuantity } from '../../quantity/quantity.js';
import { validateName } from '../storage/names.js';
import { labelKeyErrors } from '../../selectors/label-validation.js';
import { configKeyProblems } from './core-validation.js';
import { invalid, notSupported, objects, required } from './field-causes.js';

// A container's env and envFrom as kube-apiserver 1.32 validates them (pkg/apis/core/validation
// ValidateEnv, validateEnvVarValueFrom, validateObjectFieldSelector, validateContainerResourceFieldSelector,
// validateConfigMapKeySelector, validateSecretKeySelector, ValidateEnvFrom). Kube 1.32 enables the
// RelaxedEnvironmentVariableValidation gate by default (beta since 1.32, pkg/features
// versioned_kube_features.go), so names and prefixes are checked with IsRelaxedEnvVarName: any
// printable ASCII character but `=`. A fieldRef's apiVersion is defaulted to v1 before this runs.

const RELAXED_ENV_NAME =
  "a valid environment variable name must consist only of printable ASCII characters other than '='";

/** validation.IsRelaxedEnvVarName for a name that is not empty. */
function envNameProblems(name: string): string[] {
  for (const ch of name) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code > 0x7e || ch === '=') return [RELAXED_ENV_NAME];
  }
  return [];
}

/** The fieldPaths an env var's fieldRef may name (validEnvDownwardAPIFieldPathExpressions), sorted. */
const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
] as const;

/** The labels pods.ConvertDownwardAPIFieldLabel accepts (before the env var's own list applies). */
const POD_FIELD_LABELS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

/** fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['key']` as the path and the key. */
function splitSubscript(fieldPath: string): { path: string; key: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const body = fieldPath.slice(0, -2);
  const at = body.indexOf("['");
  if (at <= 0) return undefined;
  return { path: body.slice(0, at), key: body.slice(at + 2) };
}

/** validateObjectFieldSelector with the env var's paths. */
export function fieldRefCauses(ref: JsonObject, allowed: readonly string[], path: string): StatusCause[] {
  const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
  const fieldPath = typeof ref.fieldPath === 'string' ? ref.fieldPath : '';
  if (apiVersion === '') return [required(`${path}.apiVersion`)];
  if (fieldPath === '') return [required(`${path}.fieldPath`)];
  const sub = splitSubscript(fieldPath);
  let conversion: string | undefined;
  if (apiVersion !== 'v1') conversion = `unsupported pod version: ${apiVersion}`;
  else if (sub && sub.path !== 'metadata.annotations' && sub.path !== 'metadata.labels')
    conversion = `field label does not support subscript: ${fieldPath}`;
  else if (!sub && !POD_FIELD_LABELS.has(fieldPath) && fieldPath !== 'spec.host')
    conversion = `field label not supported: ${fieldPath}`;
  if (conversion !== undefined)
    return [invalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: ${conversion}`)];
  if (sub) {
    // ValidateQualifiedName on the key (lower-cased for annotations), reported at the fieldRef
    const key = sub.path === 'metadata.annotations' ? sub.key.toLowerCase() : sub.key;
    return labelKeyErrors(key).map((m) => invalid(path, key, m));
  }
  const internal = fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath;
  return allowed.includes(internal) ? [] : [notSupported(`${path}.fieldPath`, internal, allowed)];
}

/** The resources a resourceFieldRef may name (validContainerResourceFieldPathExpressions), sorted. */
const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
] as const;

const DIVISORS_FOR_CPU = ['1m', '1'];
const DIVISORS_FOR_BYTES = [
  '1',
  '1k',
  '1M',
  '1G',
  '1T',
  '1P',
  '1E',
  '1Ki',
  '1Mi',
  '1Gi',
  '1Ti',
  '1Pi',
  '1Ei',
];
const BYTES_LIST = '1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei';

/** validateContainerResourceDivisor: a divisor that suits the resource (reported with the resource). */
function divisorCauses(resource: string, divisor: unknown, path: string): StatusCause[] {
  if (typeof divisor !== 'string' || !isQuantity(divisor)) return [];
  if (compareQuantities(parseQuantity(divisor), parseQuantity('0')) === 0) return [];
  const at = `${path}.divisor`;
  const causes: StatusCause[] = [];
  const check = (allowed: readonly string[], detail: string): void => {
    if (!allowed.includes(divisor)) causes.push(invalid(at, resource, detail));
  };
  if (resource === 'limits.cpu' || resource === 'requests.cpu')
    check(DIVISORS_FOR_CPU, "only divisor's values 1m and 1 are supported with the cpu resource");
  else if (resource === 'limits.memory' || resource === 'requests.memory')
    check(DIVISORS_FOR_BYTES, `only divisor's values ${BYTES_LIST} are supported with the memory resource`);
  else if (resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage')
    check(
      DIVISORS_FOR_BYTES,
      `only divisor's values ${BYTES_LIST} are supported with the local ephemeral storage resource`,
    );
  if (resource.startsWith('requests.hugepages-') || resource.startsWith('limits.hugepages-'))
    check(
      DIVISORS_FOR_BYTES,
      `only divisor's values ${BYTES_LIST} are supported with the hugepages resource`,
    );
  return causes;
}

/**
 * validateContainerResourceFieldSelector: the container's name (in a volume), the resource (one of
 * the list or a hugepages- one), a divisor that suits it (canonicalized before this runs).
 */
export function resourceFieldRefCauses(ref: JsonObject, path: string, inVolume: boolean): StatusCause[] {
  const resource = typeof ref.resource === 'string' ? ref.resource : '';
  const causes: StatusCause[] = [];
  if (inVolume && (typeof ref.containerName !== 'string' || ref.containerName === ''))
    causes.push(required(`${path}.containerName`));
  else if (resource === '') causes.push(required(`${path}.resource`));
  else if (
    !(RESOURCE_FIELD_PATHS as readonly string[]).includes(resource) &&
    !resource.startsWith('limits.hugepages-') &&
    !resource.startsWith('requests.hugepages-')
  )
    causes.push(notSupported(`${path}.resource`, resource, RESOURCE_FIELD_PATHS));
  causes.push(...divisorCauses(resource, ref.divisor, path));
  return causes;
}

/** validateConfigMapKeySelector and validateSecretKeySelector: a DNS-subdomain name, a config key. */
function keySelectorCauses(ref: JsonObject, path: string): StatusCause[] {
  const name = typeof ref.name === 'string' ? ref.name : '';
  const causes = validateName(name, 'subdomain', `${path}.name`);
  const key = typeof ref.key === 'string' ? ref.key : '';
  if (key === '') causes.push(required(`${path}.key`));
  else for (const m of configKeyProblems(key)) causes.push(invalid(`${path}.key`, key, m));
  return causes;
}

function valueFromCauses(env: JsonObject, path: string): StatusCause[] {
  const from = env.valueFrom;
  if (!isObject(from)) return [];
  const causes: StatusCause[] = [];
  let sources = 0;
  if (isObject(from.fieldRef)) {
    sources++;
    causes.push(...fieldRefCauses(from.fieldRef, ENV_FIELD_PATHS, `${path}.fieldRef`));
  }
  if (isObject(from.resourceFieldRef)) {
    sources++;
    causes.push(...resourceFieldRefCauses(from.resourceFieldRef, `${path}.resourceFieldRef`, false));
  }
  if (isObject(from.configMapKeyRef)) {
    sources++;
    causes.push(...keySelectorCauses(from.configMapKeyRef, `${path}.configMapKeyRef`));
  }
  if (isObject(from.secretKeyRef)) {
    sources++;
    causes.push(...keySelectorCauses(from.secretKeyRef, `${path}.secretKeyRef`));
  }
  if (sources === 0)
    causes.push(
      invalid(
        path,
        '',
        'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      ),
    );
  else if (typeof env.value === 'string' && env.value !== '')
    causes.push(invalid(path, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1)
    causes.push(invalid(path, '', 'may not have more than one field specified at a time'));
  return causes;
}

/** ValidateEnv: each variable's name, and its valueFrom (exactly one source, and no value beside it). */
export function envCauses(env: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  objects(env).forEach((e, i) => {
    const at = `${path}[${i}]`;
    const name = typeof e.name === 'string' ? e.name : '';
    if (name === '') causes.push(required(`${at}.name`));
    else for (const m of envNameProblems(name)) causes.push(invalid(`${at}.name`, name, m));
    causes.push(...valueFromCauses(e, `${at}.valueFrom`));
  });
  return causes;
}

/** ValidateConfigMapName and ValidateSecretName with prefix: a DNS subdomain that may end in `-`. */
function envSourceNameCauses(ref: JsonObject, path: string): StatusCause[] {
  const name = typeof ref.name === 'string' ? ref.name : '';
  if (name === '') return [required(`${path}.name`)];
  // apimachinery's maskTrailingDash drops the last two characters and appends `a`
  const checked = name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
  return validateName(checked, 'subdomain', `${path}.name`).map((c) => ({
    ...c,
    message: c.message.replace(JSON.stringify(checked), JSON.stringify(name)),
  }));
}

/** ValidateEnvFrom: the prefix, exactly one of configMapRef and secretRef (reported at the list). */
export function envFromCauses(envFrom: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  objects(envFrom).forEach((e, i) => {
    const at = `${path}[${i}]`;
    if (typeof e.prefix === 'string' && e.prefix !== '')
      for (const m of envNameProblems(e.prefix)) causes.push(invalid(`${at}.prefix`, e.prefix, m));
    let sources = 0;
    if (isObject(e.configMapRef)) {
      sources++;
      causes.push(...envSourceNameCauses(e.configMapRef, `${at}.configMapRef`));
    }
    if (isObject(e.secretRef)) {
      sources++;
      causes.push(...envSourceNameCauses(e.secretRef, `${at}.secretRef`));
    }
    if (sources === 0) causes.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1)
      causes.push(invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return causes;
}
