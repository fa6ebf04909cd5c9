import type { ModuleRef } from '@nestjs/core';
import type { KubernetesResource, Reconciler as CoreReconciler } from '@tosdk/core';

/** Runs a function in a fresh nestjs-pino logging context. */
export type PinoContextRunner = <T>(fn: () => T) => T;

/**
 * nestjs-pino's context runner when the app uses its LoggerModule, else undefined (nestjs-pino is
 * an optional peer; it is loaded only to ask).
 */
export async function pinoContextRunner(moduleRef: ModuleRef): Promise<PinoContextRunner | undefined> {
  let pino: typeof import('nestjs-pino');
  try {
    pino = await import('nestjs-pino');
  } catch {
    return undefined;
  }
  // set once a PinoLogger exists: the app imported LoggerModule
  if (!(pino.PinoLogger.root as unknown)) return undefined;
  try {
    const logger = await moduleRef.resolve(pino.PinoLogger, undefined, { strict: false });
    return (fn) => logger.runInContext(fn);
  } catch {
    return undefined;
  }
}

const WRAPPED = new Set<PropertyKey>(['reconcile', 'cleanup', 'updateErrorStatus']);

/**
 * The reconciler with `reconcile`, `cleanup` and `updateErrorStatus` each run in their own
 * nestjs-pino context, as an HTTP request is, so `PinoLogger.assign()` works inside them and its
 * fields stay with that one reconciliation. Everything else is the instance's own.
 */
export function withPinoContext<P extends KubernetesResource>(
  reconciler: CoreReconciler<P>,
  run: PinoContextRunner,
): CoreReconciler<P> {
  return new Proxy(reconciler, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (!WRAPPED.has(property)) return method.bind(target);
      return (...args: unknown[]) => run(() => method.apply(target, args));
    },
  });
}
