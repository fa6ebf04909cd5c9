import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { ModulesContainer } from '@nestjs/core';

/** The stop an instance's onModuleDestroy waits for, and the app (its modules) it belongs to. */
const WAITS = Symbol('tosdk:waits-for-operator-stop');

interface Waits {
  readonly stop: () => Promise<void>;
  readonly modules: ModulesContainer;
  /** Also an instance of another app (a useValue object of several test apps): waits for none. */
  shared: boolean;
}

type Destroyable = { onModuleDestroy: (...args: unknown[]) => unknown; [WAITS]?: Waits };

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
 * are wrapped by calling this again; `except` and frozen instances are skipped, and an instance of
 * several apps (one `useValue` object in two test apps) waits for no operator.
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
        if (typeof target.onModuleDestroy !== 'function') continue;
        const known = target[WAITS];
        if (known) {
          // whose app is closing cannot be told for an instance of several apps: stop none
          if (known.modules !== modules) known.shared = true;
          continue;
        }
        if (!Object.isExtensible(target)) continue;
        const own = target.onModuleDestroy;
        const waits: Waits = { stop, modules, shared: false };
        try {
          Object.defineProperty(target, 'onModuleDestroy', {
            configurable: true,
            writable: true,
            value: async (...args: unknown[]) => {
              // a failed stop is reported by beforeApplicationShutdown; the provider still cleans up
              if (!waits.shared) await waits.stop().catch(() => undefined);
              return own.apply(target, args);
            },
          });
          Object.defineProperty(target, WAITS, { value: waits });
        } catch {
          // a property that cannot be redefined: leave that instance as it is
        }
      }
    }
  }
}
