import type {
  ControllerConfigurationOptions,
  GenericRetryOptions,
  KubernetesResource,
  LinearRateLimiterOptions,
  OperatorOptions,
} from '@tosdk/core';
import {
  InvalidNamespacesError,
  InvalidShardingConfigurationError,
  isValidFinalizerName,
  resolveNamespaces,
  shardingFromEnvironment,
  WATCH_ALL_NAMESPACES,
  WATCH_CURRENT_NAMESPACE,
} from '@tosdk/core';
import { ENV_PREFIX } from '../operator.constants.js';
import { EnvironmentConfigurationError } from '../errors.js';
import { EnvironmentValues, MAX_DURATION_MS, parseDuration, tooLongMessage } from './environment-values.js';

/**
 * Operator-level variables:
 * - `TOSDK_CONCURRENT_RECONCILIATION_THREADS`: positive integer.
 * - `TOSDK_CACHE_SYNC_TIMEOUT`: duration (`30s`, `2m`, or ms; every duration at most 2^31-1 ms, 596 h).
 * - `TOSDK_TERMINATION_TIMEOUT`: duration.
 * - `TOSDK_CHECK_CRD`: boolean (`checkCrdAndValidateLocalModel`).
 * - `TOSDK_STOP_ON_INFORMER_ERROR_DURING_STARTUP`: boolean.
 * - `TOSDK_USE_SSA`: boolean (`useSSAToPatchPrimaryResource`).
 * - `TOSDK_CURRENT_NAMESPACE`: the namespace `WATCH_CURRENT_NAMESPACE` stands for.
 * - `TOSDK_SHARDING` (`true`/`false`) and `TOSDK_SHARDING_*`: the `sharding` option (see core's
 *   `shardingFromEnvironment`); merged over the module's `sharding` option.
 *
 * @throws EnvironmentConfigurationError naming the variable with a bad value.
 */
export function operatorOptionsFromEnvironment(
  env: Record<string, string | undefined>,
): Partial<OperatorOptions> {
  const v = new EnvironmentValues(env);
  const o: Partial<OperatorOptions> = {};
  const set = <K extends keyof OperatorOptions>(key: K, value: OperatorOptions[K] | undefined) => {
    if (value !== undefined) o[key] = value;
  };
  set('concurrentReconciliationThreads', v.integer(`${ENV_PREFIX}CONCURRENT_RECONCILIATION_THREADS`, 1));
  set('cacheSyncTimeoutMs', v.duration(`${ENV_PREFIX}CACHE_SYNC_TIMEOUT`));
  set('terminationTimeoutMs', v.duration(`${ENV_PREFIX}TERMINATION_TIMEOUT`));
  set('checkCrdAndValidateLocalModel', v.boolean(`${ENV_PREFIX}CHECK_CRD`));
  set('stopOnInformerErrorDuringStartup', v.boolean(`${ENV_PREFIX}STOP_ON_INFORMER_ERROR_DURING_STARTUP`));
  set('useSSAToPatchPrimaryResource', v.boolean(`${ENV_PREFIX}USE_SSA`));
  set('currentNamespace', v.raw(`${ENV_PREFIX}CURRENT_NAMESPACE`));
  try {
    set('sharding', shardingFromEnvironment(env));
  } catch (error) {
    if (!(error instanceof InvalidShardingConfigurationError)) throw error;
    throw new EnvironmentConfigurationError(`${ENV_PREFIX}SHARDING`, error.message);
  }
  return o;
}

/** The suffixes of per-controller variables (after `TOSDK_CONTROLLER_<NAME>_`). */
export const CONTROLLER_VARIABLE_SUFFIXES = [
  'NAMESPACES',
  'LABEL_SELECTOR',
  'FIELD_SELECTOR',
  'FINALIZER',
  'GENERATION_AWARE',
  'RETRY_MAX_ATTEMPTS',
  'RETRY_INITIAL_INTERVAL',
  'RETRY_INTERVAL_MULTIPLIER',
  'RETRY_MAX_INTERVAL',
  'MAX_RECONCILIATION_INTERVAL',
  'RATE_LIMIT',
  'FIELD_MANAGER',
  'RECONCILE_TIMEOUT',
] as const;

/** `TOSDK_CONTROLLER_<NAME>_`: the controller name upper-cased, every other character than A-Z and 0-9 as `_`. */
export function controllerVariablePrefix(controllerName: string): string {
  return `${ENV_PREFIX}CONTROLLER_${controllerName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
}

function rateLimit(v: EnvironmentValues, name: string): LinearRateLimiterOptions | undefined {
  const raw = v.raw(name);
  if (raw === undefined) return undefined;
  if (raw.toLowerCase() === 'off') return { limitForPeriod: -1 };
  const m = /^(\d+)\/(.+)$/.exec(raw);
  const period = m ? parseDuration(m[2]) : undefined;
  if (!m || period === undefined || period <= 0 || Number(m[1]) < 1) {
    throw new EnvironmentConfigurationError(
      name,
      `expected <reconciliations>/<period> such as 5/10s, or off, got "${raw}"`,
    );
  }
  if (period > MAX_DURATION_MS) throw new EnvironmentConfigurationError(name, tooLongMessage(m[2]));
  return { limitForPeriod: Number(m[1]), refreshPeriodMs: period };
}

/** A comma list of namespace names (DNS labels), or `JOSDK_ALL_NAMESPACES` / `JOSDK_WATCH_CURRENT`, checked as core will. */
function namespaces(v: EnvironmentValues, name: string): string[] | undefined {
  const list = v.list(name);
  if (list === undefined) return undefined;
  try {
    // what JOSDK_WATCH_CURRENT stands for is only known to the operator; any valid name will do here
    resolveNamespaces(list, 'default');
  } catch (error) {
    if (!(error instanceof InvalidNamespacesError)) throw error;
    throw new EnvironmentConfigurationError(
      name,
      `${error.message}; expected comma-separated namespace names (lower-case letters, digits and -), ${WATCH_ALL_NAMESPACES} or ${WATCH_CURRENT_NAMESPACE}`,
    );
  }
  return list;
}

/** A finalizer name: a qualified name such as `example.com/finalizer`, checked as core will. */
function finalizer(v: EnvironmentValues, name: string): string | undefined {
  const value = v.raw(name);
  if (value === undefined || isValidFinalizerName(value)) return value;
  throw new EnvironmentConfigurationError(
    name,
    `"${value}" is not a valid finalizer name: expected a qualified name such as example.com/finalizer`,
  );
}

/**
 * Per-controller variables, `TOSDK_CONTROLLER_<NAME>_<SUFFIX>` (see {@link controllerVariablePrefix}):
 * `NAMESPACES` (comma list of namespace names, `JOSDK_ALL_NAMESPACES` or `JOSDK_WATCH_CURRENT`),
 * `LABEL_SELECTOR`, `FIELD_SELECTOR`, `FINALIZER` (a qualified name), `GENERATION_AWARE`
 * (boolean), `RETRY_MAX_ATTEMPTS` (integer, -1 unlimited), `RETRY_INITIAL_INTERVAL` and
 * `RETRY_MAX_INTERVAL` (durations), `RETRY_INTERVAL_MULTIPLIER` (number),
 * `MAX_RECONCILIATION_INTERVAL` (duration or `off`), `RATE_LIMIT` (`5/10s` or `off`),
 * `FIELD_MANAGER`, `RECONCILE_TIMEOUT` (duration).
 *
 * @param base - the options so far; retry options are merged field by field.
 * @throws EnvironmentConfigurationError naming the variable with a bad value.
 */
export function controllerOptionsFromEnvironment(
  env: Record<string, string | undefined>,
  controllerName: string,
  base: ControllerConfigurationOptions<KubernetesResource> = {},
): ControllerConfigurationOptions<KubernetesResource> {
  const v = new EnvironmentValues(env);
  const p = controllerVariablePrefix(controllerName);
  const o: ControllerConfigurationOptions<KubernetesResource> = {};
  const set = <K extends keyof ControllerConfigurationOptions>(
    key: K,
    value: ControllerConfigurationOptions<KubernetesResource>[K] | undefined,
  ) => {
    if (value !== undefined) o[key] = value;
  };
  set('namespaces', namespaces(v, `${p}NAMESPACES`));
  set('labelSelector', v.raw(`${p}LABEL_SELECTOR`));
  set('fieldSelector', v.raw(`${p}FIELD_SELECTOR`));
  set('finalizerName', finalizer(v, `${p}FINALIZER`));
  set('generationAware', v.boolean(`${p}GENERATION_AWARE`));
  set('fieldManager', v.raw(`${p}FIELD_MANAGER`));
  set('reconcileTimeoutMs', v.duration(`${p}RECONCILE_TIMEOUT`));
  set('maxReconciliationIntervalMs', v.duration(`${p}MAX_RECONCILIATION_INTERVAL`, true));
  set('rateLimiter', rateLimit(v, `${p}RATE_LIMIT`));
  const retry: GenericRetryOptions = {};
  const maxAttempts = v.integer(`${p}RETRY_MAX_ATTEMPTS`, -1);
  const initialInterval = v.duration(`${p}RETRY_INITIAL_INTERVAL`);
  const intervalMultiplier = v.positiveNumber(`${p}RETRY_INTERVAL_MULTIPLIER`);
  const maxInterval = v.duration(`${p}RETRY_MAX_INTERVAL`);
  if (maxAttempts !== undefined) retry.maxAttempts = maxAttempts;
  if (initialInterval !== undefined) retry.initialInterval = initialInterval;
  if (intervalMultiplier !== undefined) retry.intervalMultiplier = intervalMultiplier;
  if (maxInterval !== undefined) retry.maxInterval = maxInterval;
  if (Object.keys(retry).length > 0) {
    const baseRetry = base.retry;
    const isInstance =
      typeof (baseRetry as { initExecution?: unknown } | undefined)?.initExecution === 'function';
    o.retry = { ...(isInstance ? {} : baseRetry), ...retry };
  }
  return o;
}

/**
 * `TOSDK_CONTROLLER_*` variables that name no suffix of any of the given controllers (likely a
 * typo or a controller this app does not have).
 */
export function unknownControllerVariables(
  env: Record<string, string | undefined>,
  controllerNames: string[],
): string[] {
  const v = new EnvironmentValues(env);
  const known = new Set(
    controllerNames.flatMap((n) =>
      CONTROLLER_VARIABLE_SUFFIXES.map((s) => `${controllerVariablePrefix(n)}${s}`),
    ),
  );
  return v.namesStartingWith(`${ENV_PREFIX}CONTROLLER_`).filter((name) => !known.has(name));
}
