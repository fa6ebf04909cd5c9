import { Injectable } from '@nestjs/common';
import type { Type } from '@nestjs/common';
import type { KubernetesResource, RegisteredController } from '@tosdk/core';
import { OperatorModuleConfigurationError } from './errors.js';
import { controllerNotRegisteredMessage } from './operator.messages.js';

/**
 * The public runtime handle of the discovered controllers: each reconciler's `RegisteredController`
 * by class or by controller name (the `@nestjs/schedule` registry's role).
 */
@Injectable()
export class OperatorRegistry {
  private readonly byClass = new Map<Type, RegisteredController>();
  private readonly byName = new Map<string, RegisteredController>();

  /** @internal Called by the orchestrator when it registers a reconciler. */
  add(reconciler: Type, controller: RegisteredController): void {
    this.byClass.set(reconciler, controller);
    this.byName.set(controller.name, controller);
  }

  /**
   * The handle of a reconciler class or controller name.
   * @throws OperatorModuleConfigurationError when it is not registered (yet).
   */
  getController<P extends KubernetesResource = KubernetesResource>(
    reconciler: Type | string,
  ): RegisteredController<P> {
    const found = typeof reconciler === 'string' ? this.byName.get(reconciler) : this.byClass.get(reconciler);
    if (!found) {
      throw new OperatorModuleConfigurationError(
        controllerNotRegisteredMessage(typeof reconciler === 'string' ? reconciler : reconciler.name),
      );
    }
    return found as unknown as RegisteredController<P>;
  }

  /** Names of the registered controllers. */
  controllerNames(): string[] {
    return [...this.byName.keys()];
  }
}

/** A handle that resolves its controller in the registry at each use (so it can be injected before registration). */
export function lazyRegisteredController(registry: OperatorRegistry, reconciler: Type): RegisteredController {
  return {
    get name() {
      return registry.getController(reconciler).name;
    },
    get configuration() {
      return registry.getController(reconciler).configuration;
    },
    changeNamespaces: (namespaces: string[]) =>
      registry.getController(reconciler).changeNamespaces(namespaces),
  };
}
