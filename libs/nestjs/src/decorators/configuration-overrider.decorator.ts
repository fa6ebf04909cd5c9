import type { ControllerConfigurationOptions, KubernetesResource } from '@tosdk/core';
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

/**
 * Marks a provider implementing {@link ControllerConfigurationOverrider}; discovered in any module.
 *
 * ```ts
 * @ConfigurationOverrider()
 * export class TenantNamespaces implements ControllerConfigurationOverrider {
 *   constructor(private readonly tenants: TenantService) {}
 *   overrideController(name, options) { return { ...options, namespaces: this.tenants.namespaces() }; }
 * }
 * ```
 */
export function ConfigurationOverrider(): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(CONFIGURATION_OVERRIDER_METADATA, true, target);
  };
}
