import type { ControllerConfigurationOptions, KubernetesResource } from '@tosdk/core';
import { FinalConfigurationOverrider } from '../decorators/configuration-overrider.decorator.js';
import type { ControllerConfigurationOverrider } from '../decorators/configuration-overrider.decorator.js';

/**
 * Restricts every namespaced controller to the test's namespace. Applied after every other source,
 * the application's own `@ConfigurationOverrider` providers included (whatever their `order`), so a
 * test never watches outside its namespace.
 */
@FinalConfigurationOverrider()
export class NamespaceRestrictionOverrider implements ControllerConfigurationOverrider {
  constructor(
    /** The namespace of the test. */
    readonly namespace: string,
  ) {}

  overrideController(
    _name: string,
    options: ControllerConfigurationOptions<KubernetesResource>,
  ): ControllerConfigurationOptions<KubernetesResource> {
    if (options.resourceType && !options.resourceType.namespaced) return options;
    return { ...options, namespaces: [this.namespace] };
  }
}
