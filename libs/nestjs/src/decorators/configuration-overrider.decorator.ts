import type { ControllerConfigurationOptions, KubernetesResource } from '@tosdk/core';
import { OperatorModuleConfigurationError } from '../errors.js';
import { CONFIGURATION_OVERRIDER_METADATA } from '../operator.constants.js';

/**
 * A provider that changes controller configurations last, after the decorator, the module options
 * and the environment (JOSDK's `ControllerConfigurationOverrider`). Mark it with
 * {@link ConfigurationOverrider}; it may inject anything.
 */
export interface ControllerConfigurationOverrider {
  /** Returns the configuration to use for the controller `name` (may return `options` changed). */
  overrideController(
    name: string,
    options: ControllerConfigurationOptions<KubernetesResource>,
  ): ControllerConfigurationOptions<KubernetesResource>;
}

/** Options of {@link ConfigurationOverrider}. */
export interface ConfigurationOverriderOptions {
  /**
   * Where the overrider runs among the others: lower first, so a higher `order` sees (and may
   * change) what the lower ones returned. Overriders of equal order run in Nest's discovery order
   * (module import order). Defaults to 0.
   */
  order?: number;
}

/** How an overrider is ordered (the decorator's metadata). */
export interface ConfigurationOverriderMetadata {
  readonly order: number;
  /** Runs after every overrider of the application, whatever its order (the testing module's restriction). */
  readonly last: boolean;
}

/**
 * Marks a provider implementing {@link ControllerConfigurationOverrider}; discovered in any module.
 * Overriders run by ascending `order` (default 0), ties in discovery order; the namespace
 * restriction of `@tosdk/nestjs/testing` always runs after all of them.
 *
 * @throws OperatorModuleConfigurationError when `order` is not a finite number.
 *
 * ```ts
 * @ConfigurationOverrider()
 * export class TenantNamespaces implements ControllerConfigurationOverrider {
 *   constructor(private readonly tenants: TenantService) {}
 *   overrideController(name, options) { return { ...options, namespaces: this.tenants.namespaces() }; }
 * }
 * ```
 */
export function ConfigurationOverrider(options: ConfigurationOverriderOptions = {}): ClassDecorator {
  const metadata: ConfigurationOverriderMetadata = { order: options.order ?? 0, last: false };
  return (target) => {
    if (!Number.isFinite(metadata.order)) {
      throw new OperatorModuleConfigurationError(
        `@ConfigurationOverrider on ${target.name}: order must be a finite number, got ${String(metadata.order)}`,
      );
    }
    Reflect.defineMetadata(CONFIGURATION_OVERRIDER_METADATA, metadata, target);
  };
}

/** Marks an overrider that runs after every other one (internal: the testing module's namespace restriction). */
export function FinalConfigurationOverrider(): ClassDecorator {
  const metadata: ConfigurationOverriderMetadata = { order: 0, last: true };
  return (target) => {
    Reflect.defineMetadata(CONFIGURATION_OVERRIDER_METADATA, metadata, target);
  };
}

/** The ordering metadata of an overrider class (a plain `true` from an older decorator counts as order 0). */
export function overriderMetadataOf(type: object): ConfigurationOverriderMetadata {
  const m: unknown = Reflect.getMetadata(CONFIGURATION_OVERRIDER_METADATA, type);
  if (typeof m === 'object' && m !== null) return m as ConfigurationOverriderMetadata;
  return { order: 0, last: false };
}
