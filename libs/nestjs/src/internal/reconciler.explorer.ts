import { Injectable } from '@nestjs/common';
import type { Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { KubernetesResource, Metrics, Reconciler as CoreReconciler } from '@tosdk/core';
import { overriderMetadataOf } from '../decorators/configuration-overrider.decorator.js';
import type { ControllerConfigurationOverrider } from '../decorators/configuration-overrider.decorator.js';
import { getReconcilerOptions } from '../decorators/reconciler.decorator.js';
import type { ReconcilerOptions } from '../decorators/reconciler.decorator.js';
import { OperatorModuleConfigurationError } from '../errors.js';
import {
  CONFIGURATION_OVERRIDER_METADATA,
  METRICS_SINK_METADATA,
  RECONCILER_METADATA,
} from '../operator.constants.js';
import {
  duplicateReconcilerMessage,
  invalidReconcilerOptionsMessage,
  notAReconcilerMessage,
  requestScopedProviderMessage,
  requestScopedReconcilerMessage,
  transientProviderMessage,
} from '../operator.messages.js';

/** What is wrong with a decorator's options, or undefined when they can be used. */
function reconcilerOptionsProblem(options: unknown): string | undefined {
  if (typeof options !== 'object' || options === null) return 'the options must be an object';
  const o = options as { resource?: unknown; resourceType?: unknown };
  if (o.resource === undefined) {
    return o.resourceType !== undefined
      ? 'the option is called resource, not resourceType'
      : 'the option resource (the primary kind) is missing';
  }
  const type: unknown = o.resource;
  const field = (name: string): unknown =>
    typeof type === 'object' && type !== null ? (type as Record<string, unknown>)[name] : undefined;
  if (
    typeof field('kind') !== 'string' ||
    typeof field('version') !== 'string' ||
    typeof field('plural') !== 'string'
  ) {
    return 'resource is not a resource type (made by defineResource or one of ResourceTypes)';
  }
  return undefined;
}

/** A reconciler provider found in the application. */
export interface DiscoveredReconciler {
  readonly type: Type;
  readonly instance: CoreReconciler<KubernetesResource>;
  readonly options: ReconcilerOptions;
}

function classOf(wrapper: InstanceWrapper): Type | undefined {
  const instance = wrapper.instance as object | undefined;
  const metatype = wrapper.metatype as unknown;
  if (typeof metatype === 'function' && !wrapper.inject) return metatype as Type;
  return instance ? (instance.constructor as Type) : undefined;
}

/**
 * The class whose decorator `key` describes the provider: its own class, else its token when that
 * is a decorated class. A test's `overrideProvider(WebPageReconciler).useValue(stub)` (or `useClass`,
 * `useFactory`) keeps the token's role, as every consumer of the token gets the stub: the operator too.
 */
function decoratedClassOf(wrapper: InstanceWrapper, key: string): Type | undefined {
  const own = classOf(wrapper);
  if (own && Reflect.getMetadata(key, own) !== undefined) return own;
  const token = wrapper.token as unknown;
  if (typeof token === 'function' && Reflect.getMetadata(key, token) !== undefined) return token as Type;
  return undefined;
}

/** Finds `@Reconciler`, `@ConfigurationOverrider` and `@OperatorMetricsSink` providers in every module. */
@Injectable()
export class ReconcilerExplorer {
  constructor(private readonly discovery: DiscoveryService) {}

  /**
   * The reconcilers, each once even when several modules list the same provider.
   * @throws OperatorModuleConfigurationError for a request-scoped or transient reconciler.
   */
  reconcilers(): DiscoveredReconciler[] {
    const seen = new Set<unknown>();
    const hosts = new Map<Type, string>();
    const found: DiscoveredReconciler[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const type = decoratedClassOf(wrapper, RECONCILER_METADATA);
      const options = getReconcilerOptions(type);
      if (!type || !options) continue;
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
        throw new OperatorModuleConfigurationError(requestScopedReconcilerMessage(type.name));
      }
      const problem = reconcilerOptionsProblem(options);
      if (problem)
        throw new OperatorModuleConfigurationError(invalidReconcilerOptionsMessage(type.name, problem));
      const instance = wrapper.instance as CoreReconciler<KubernetesResource> | undefined;
      if (!instance || seen.has(instance)) continue;
      if (typeof instance.reconcile !== 'function') {
        throw new OperatorModuleConfigurationError(notAReconcilerMessage(type.name));
      }
      const host = wrapper.host?.name ?? 'an unnamed module';
      const other = hosts.get(type);
      if (other !== undefined) {
        throw new OperatorModuleConfigurationError(duplicateReconcilerMessage(type.name, other, host));
      }
      hosts.set(type, host);
      seen.add(instance);
      found.push({ type, instance, options });
    }
    return found;
  }

  /**
   * The configuration overrider providers in the order they run: ascending `order`, ties in discovery
   * order, the final ones (the testing module's namespace restriction) after all others.
   * @throws OperatorModuleConfigurationError for a request-scoped or transient overrider.
   */
  overriders(): ControllerConfigurationOverrider[] {
    // Array.prototype.sort is stable: equal ranks keep the discovery order
    return this.providersWith(CONFIGURATION_OVERRIDER_METADATA, '@ConfigurationOverrider')
      .map(({ type, instance }) => ({ instance, m: overriderMetadataOf(type) }))
      .sort((a, b) => Number(a.m.last) - Number(b.m.last) || a.m.order - b.m.order)
      .map(({ instance }) => instance as ControllerConfigurationOverrider);
  }

  /**
   * The metrics sink providers.
   * @throws OperatorModuleConfigurationError for a request-scoped or transient sink.
   */
  metricsSinks(): Metrics[] {
    return this.providersWith(METRICS_SINK_METADATA, '@OperatorMetricsSink').map(
      ({ instance }) => instance as Metrics,
    );
  }

  /**
   * The instances of the providers whose class carries `key`, each once, in discovery order.
   * @throws OperatorModuleConfigurationError for a request-scoped or transient one (named by `decorator`).
   */
  private providersWith(key: string, decorator: string): { type: Type; instance: object }[] {
    const out = new Map<object, Type>();
    for (const wrapper of this.discovery.getProviders()) {
      const type = decoratedClassOf(wrapper, key);
      if (!type || !Reflect.getMetadata(key, type)) continue;
      if (!wrapper.isDependencyTreeStatic()) {
        throw new OperatorModuleConfigurationError(requestScopedProviderMessage(decorator, type.name));
      }
      if (wrapper.isTransient) {
        // Nest made no instance for the operator: the one it holds was never constructed
        throw new OperatorModuleConfigurationError(transientProviderMessage(decorator, type.name));
      }
      const instance = wrapper.instance as object | undefined;
      if (instance && !out.has(instance)) out.set(instance, type);
    }
    return [...out].map(([instance, type]) => ({ type, instance }));
  }
}
