import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { ModulesContainer } from '@nestjs/core';

/** Marks an instance whose onModuleDestroy already waits for the operator's stop. */
const WAITS = Symbol('tosdk:waits-for-operator-stop');

type Destroyable = { onModuleDestroy: (...args: unknown[]) => unknown; [WAITS]?: true };

/** The static instances of a module (those Nest calls onModuleDestroy on). */
function* instancesOf(wrappers: Iterable<InstanceWrapper>): Generator<unknown> {
  for (const wrapper of wrappers) {
    if (!wrapper.isDependencyTreeStatic()) continue;
    if (wrapper.isTransient) {
      for (const transient of wrapper.getStaticTransientInstances()) yield transient?.instance;
    } else {
      yield wrapper.instance;
    }
  }
}

/**
 * Makes each `onModuleDestroy` of the application's instances (providers, module classes,
 * controllers, enhancers) wait for `stop` first, so the operator stops (its running reconciliations
 * finish) before any provider a reconciler uses releases what it holds. Nest calls every
 * `onModuleDestroy` before any `beforeApplicationShutdown`, and a global module's last; Spring destroys
 * the Operator bean before the beans its reconcilers depend on. Instances made later (a lazy module)
 * are wrapped by calling this again; an instance already wrapped, `except` and frozen ones are skipped.
 */
export function stopBeforeDestroyHooks(
  modules: ModulesContainer,
  stop: () => Promise<void>,
  except: object,
): void {
  for (const module of modules.values()) {
    const collections = [module.providers, module.controllers, module.injectables, module.middlewares];
    for (const collection of collections) {
      for (const instance of instancesOf(collection.values() as Iterable<InstanceWrapper>)) {
        if (typeof instance !== 'object' || instance === null || instance === except) continue;
        const target = instance as Destroyable;
        if (typeof target.onModuleDestroy !== 'function' || target[WAITS]) continue;
        if (!Object.isExtensible(target)) continue;
        const own = target.onModuleDestroy;
        try {
          Object.defineProperty(target, 'onModuleDestroy', {
            configurable: true,
            writable: true,
            value: async (...args: unknown[]) => {
              // a failed stop is reported by beforeApplicationShutdown; the provider still cleans up
              await stop().catch(() => undefined);
              return own.apply(target, args);
            },
          });
          Object.defineProperty(target, WAITS, { value: true });
        } catch {
          // a property that cannot be redefined: leave that instance as it is
        }
      }
    }
  }
}
