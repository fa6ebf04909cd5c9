import type { KubernetesResource, ResourceType } from '../api/resource-type.js';
import type { Reconciler } from '../api/reconciler.js';
import type { GenericFilter, OnAddFilter, OnDeleteFilter, OnUpdateFilter } from './event-filters.js';
import { resolveNamespaces } from './namespaces.js';
import { LinearRateLimiter } from './rate-limiter.js';
import type { LinearRateLimiterOptions, RateLimiter } from './rate-limiter.js';
import { GenericRetry } from './retry.js';
import type { GenericRetryOptions, Retry } from './retry.js';
import type { ManagedWorkflowSpec } from '../workflow/managed-workflow.js';

/** Max reconciliation interval of a controller unless configured: 10 hours. */
export const DEFAULT_MAX_RECONCILIATION_INTERVAL_MS = 10 * 60 * 60 * 1000;
/** A max reconciliation interval value that turns the periodic trigger off (any non-positive value does). */
export const NO_MAX_RECONCILIATION_INTERVAL = -1;

/** Thrown when a controller's configuration cannot be used; the message names the field. */
export class InvalidControllerConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidControllerConfiguration';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidControllerConfigurationError';
  }
}

/**
 * How a controller runs (JOSDK's `@ControllerConfiguration` and its overrider). Given on the
 * reconciler class with the {@link ControllerConfiguration} decorator and/or at registration;
 * registration options win field by field.
 *
 * @typeParam P - the primary kind.
 */
export interface ControllerConfigurationOptions<P extends KubernetesResource = KubernetesResource> {
  /** The primary kind. Required (on the decorator or at registration). */
  resourceType?: ResourceType<P>;
  /** Unique name of the controller. Defaults to the reconciler's class name lower-cased. */
  name?: string;
  /** Finalizer added when the reconciler is a Cleaner. Defaults to `<plural>.<group>/finalizer` (`<plural>/finalizer` for the core group). */
  finalizerName?: string;
  /** Namespaces to watch: `[]` or `[WATCH_ALL_NAMESPACES]` for all, names, or `WATCH_CURRENT_NAMESPACE`. Defaults to all. */
  namespaces?: string[];
  /** Label selector on primaries (what is cached and reconciled). Defaults to none. */
  labelSelector?: string;
  /** Field selector on primaries. Defaults to none. */
  fieldSelector?: string;
  /** Skip updates that do not change `metadata.generation` (status- or metadata-only changes). Defaults to true. */
  generationAware?: boolean;
  /** Apply the framework's filters (generation awareness, finalizer and deletion mark rules) before the user's. Defaults to true; false lets the user filters alone decide. */
  useDefaultEventFilters?: boolean;
  /** Filter of add events. Defaults to accept all. */
  onAddFilter?: OnAddFilter<P>;
  /** Filter of update events. Defaults to accept all. */
  onUpdateFilter?: OnUpdateFilter<P>;
  /** Filter of delete events. Defaults to accept all. */
  onDeleteFilter?: OnDeleteFilter<P>;
  /** Filter of every event. Defaults to accept all. */
  genericFilter?: GenericFilter<P>;
  /** Retry policy, or options of a {@link GenericRetry}. Defaults to `GenericRetry.defaultLimitedExponentialRetry()`. */
  retry?: Retry | GenericRetryOptions;
  /** Rate limiter, or options of a {@link LinearRateLimiter}. Defaults to none (off). */
  rateLimiter?: RateLimiter | LinearRateLimiterOptions;
  /** Reconcile at least this often (ms) without events; <= 0 turns it off. Defaults to 10 hours. */
  maxReconciliationIntervalMs?: number;
  /** Field manager of the framework's writes of the primary. Defaults to the controller name. */
  fieldManager?: string;
  /** Patch the primary with server-side apply (else JSON merge/JSON patch). Defaults to the operator's `useSSAToPatchPrimaryResource` (true). */
  useSSA?: boolean;
  /** A reconcile or cleanup not settled after this many ms fails with ReconcileTimeoutError and is retried. Defaults to none. */
  reconcileTimeoutMs?: number;
  /** Publish a Warning Event on the primary when a reconciliation fails. Defaults to true. */
  recordReconcileErrorEvents?: boolean;
  /** The managed workflow of dependent resources (JOSDK's `@Workflow`), run before `reconcile` and on cleanup. Defaults to none. */
  workflow?: ManagedWorkflowSpec<P>;
}

/**
 * A controller's configuration with every default filled in; what the engines take. Made by
 * {@link resolveControllerConfiguration}.
 */
export interface ResolvedControllerConfiguration<P extends KubernetesResource = KubernetesResource> {
  readonly resourceType: ResourceType<P>;
  readonly name: string;
  readonly finalizerName: string;
  /** `[]` for all namespaces, else sorted names. */
  readonly namespaces: readonly string[];
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly generationAware: boolean;
  readonly useDefaultEventFilters: boolean;
  readonly onAddFilter?: OnAddFilter<P>;
  readonly onUpdateFilter?: OnUpdateFilter<P>;
  readonly onDeleteFilter?: OnDeleteFilter<P>;
  readonly genericFilter?: GenericFilter<P>;
  readonly retry: Retry;
  readonly rateLimiter: RateLimiter;
  /** Undefined when off. */
  readonly maxReconciliationIntervalMs?: number;
  readonly fieldManager: string;
  readonly useSSA: boolean;
  readonly reconcileTimeoutMs?: number;
  readonly recordReconcileErrorEvents: boolean;
  /** The managed workflow declaration, if any (checked when the controller is created). */
  readonly workflow?: ManagedWorkflowSpec<P>;
}

/** Operator-level values a controller configuration inherits. */
export interface ControllerConfigurationDefaults {
  /** What `WATCH_CURRENT_NAMESPACE` stands for. */
  currentNamespace: string;
  /** The operator's default for `useSSA`. */
  useSSA: boolean;
}

type AnyClass = abstract new (...args: never[]) => unknown;
const CONFIGURATION = new WeakMap<object, unknown>();

/**
 * Class decorator carrying a reconciler's configuration (JOSDK's `@ControllerConfiguration`). Works
 * as a legacy (experimentalDecorators) and a standard decorator; no reflect-metadata needed.
 *
 * ```ts
 * @ControllerConfiguration({ resourceType: WebPage, namespaces: ['web'] })
 * class WebPageReconciler implements Reconciler<WebPage> { ... }
 * ```
 */
export function ControllerConfiguration<P extends KubernetesResource>(
  options: ControllerConfigurationOptions<P>,
): (target: AnyClass, context?: unknown) => void {
  return (target) => {
    CONFIGURATION.set(target, options);
  };
}

/** The options the decorator put on a reconciler's class (or a base class), if any. */
export function getDecoratedConfiguration<P extends KubernetesResource>(
  reconciler: Reconciler<P>,
): ControllerConfigurationOptions<P> | undefined {
  let proto: object | null = Object.getPrototypeOf(reconciler) as object | null;
  while (proto && proto !== Object.prototype) {
    const ctor = (proto as { constructor?: object }).constructor;
    const found = ctor ? CONFIGURATION.get(ctor) : undefined;
    if (found) return found;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return undefined;
}

/** JOSDK's default finalizer name of a kind: `<plural>.<group>/finalizer`, or `<plural>/finalizer` for the core group. */
export function defaultFinalizerName(type: ResourceType): string {
  return `${type.group ? `${type.plural}.${type.group}` : type.plural}/finalizer`;
}

const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether a string is a valid finalizer name (a Kubernetes qualified name, e.g. `example.com/cleanup`). */
export function isValidFinalizerName(name: string): boolean {
  const slash = name.indexOf('/');
  const prefix = slash < 0 ? undefined : name.slice(0, slash);
  const local = slash < 0 ? name : name.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return false;
  }
  return local.length > 0 && local.length <= 63 && QUALIFIED_NAME.test(local);
}

function isRetry(value: unknown): value is Retry {
  return typeof (value as Partial<Retry>)?.initExecution === 'function';
}
function isRateLimiter(value: unknown): value is RateLimiter {
  const v = value as Partial<RateLimiter>;
  return typeof v?.isLimited === 'function' && typeof v.initState === 'function';
}

function checkFunction(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new InvalidControllerConfigurationError(`${name} must be a function`);
  }
}

/**
 * Merges the decorator's options with registration options (registration wins) and fills every
 * default. Validates everything a user can get wrong.
 * @throws InvalidControllerConfigurationError naming the field at fault.
 */
export function resolveControllerConfiguration<P extends KubernetesResource>(
  reconciler: Reconciler<P>,
  overrides: ControllerConfigurationOptions<P> | undefined,
  defaults: ControllerConfigurationDefaults,
): ResolvedControllerConfiguration<P> {
  if (!reconciler || typeof reconciler.reconcile !== 'function') {
    throw new InvalidControllerConfigurationError(
      'the reconciler must have a reconcile(resource, context) method',
    );
  }
  const o: ControllerConfigurationOptions<P> = { ...getDecoratedConfiguration(reconciler), ...overrides };
  const type = o.resourceType;
  if (!type || typeof type.kind !== 'string' || typeof type.plural !== 'string') {
    throw new InvalidControllerConfigurationError(
      'resourceType is required: pass a ResourceType (defineResource(...) or ResourceTypes.X) on @ControllerConfiguration or at registration',
    );
  }
  const className = (reconciler as object).constructor?.name;
  const name = o.name ?? (className && className !== 'Object' ? className.toLowerCase() : undefined);
  if (!name || typeof name !== 'string' || !name.trim()) {
    throw new InvalidControllerConfigurationError(
      'name is required for a reconciler that is not a class instance (an object literal has no class name)',
    );
  }
  const finalizerName = o.finalizerName ?? defaultFinalizerName(type);
  if (!isValidFinalizerName(finalizerName)) {
    throw new InvalidControllerConfigurationError(
      `finalizerName "${finalizerName}" is not a valid qualified name such as "example.com/finalizer"`,
    );
  }
  let namespaces: string[];
  try {
    namespaces = resolveNamespaces(o.namespaces, defaults.currentNamespace);
  } catch (e) {
    throw new InvalidControllerConfigurationError(`namespaces: ${(e as Error).message}`);
  }
  if (!type.namespaced && namespaces.length > 0) {
    throw new InvalidControllerConfigurationError(
      `namespaces: ${type.kind} is cluster-scoped; it cannot be restricted to namespaces`,
    );
  }
  for (const key of ['labelSelector', 'fieldSelector', 'fieldManager'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'string') {
      throw new InvalidControllerConfigurationError(`${key} must be a string`);
    }
  }
  for (const key of ['onAddFilter', 'onUpdateFilter', 'onDeleteFilter', 'genericFilter'] as const) {
    checkFunction(key, o[key]);
  }
  let retry: Retry;
  let rateLimiter: RateLimiter;
  try {
    retry =
      o.retry === undefined
        ? GenericRetry.defaultLimitedExponentialRetry()
        : isRetry(o.retry)
          ? o.retry
          : new GenericRetry(o.retry);
    rateLimiter =
      o.rateLimiter === undefined
        ? LinearRateLimiter.deactivatedRateLimiter()
        : isRateLimiter(o.rateLimiter)
          ? o.rateLimiter
          : new LinearRateLimiter(o.rateLimiter);
  } catch (e) {
    throw new InvalidControllerConfigurationError((e as Error).message);
  }
  const interval = o.maxReconciliationIntervalMs ?? DEFAULT_MAX_RECONCILIATION_INTERVAL_MS;
  if (typeof interval !== 'number' || Number.isNaN(interval)) {
    throw new InvalidControllerConfigurationError('maxReconciliationIntervalMs must be a number');
  }
  if (
    o.reconcileTimeoutMs !== undefined &&
    !(o.reconcileTimeoutMs > 0 && Number.isFinite(o.reconcileTimeoutMs))
  ) {
    throw new InvalidControllerConfigurationError('reconcileTimeoutMs must be a positive number of ms');
  }
  return Object.freeze({
    resourceType: type,
    name,
    finalizerName,
    namespaces: Object.freeze(namespaces),
    labelSelector: o.labelSelector || undefined,
    fieldSelector: o.fieldSelector || undefined,
    generationAware: o.generationAware ?? true,
    useDefaultEventFilters: o.useDefaultEventFilters ?? true,
    onAddFilter: o.onAddFilter,
    onUpdateFilter: o.onUpdateFilter,
    onDeleteFilter: o.onDeleteFilter,
    genericFilter: o.genericFilter,
    retry,
    rateLimiter,
    maxReconciliationIntervalMs: interval > 0 ? interval : undefined,
    fieldManager: o.fieldManager || name,
    useSSA: o.useSSA ?? defaults.useSSA,
    reconcileTimeoutMs: o.reconcileTimeoutMs,
    recordReconcileErrorEvents: o.recordReconcileErrorEvents ?? true,
    workflow: o.workflow,
  });
}
