import { Inject } from '@nestjs/common';
import type { Type } from '@nestjs/common';

const TOKENS = new Map<Type, symbol>();

/** The injection token of the `RegisteredController` of a reconciler class. */
export function getRegisteredControllerToken(reconciler: Type): symbol {
  let token = TOKENS.get(reconciler);
  if (!token) {
    token = Symbol(`tosdk:RegisteredController(${reconciler.name})`);
    TOKENS.set(reconciler, token);
  }
  return token;
}

/** Reconciler classes some provider asked the controller handle of (so the module provides it). */
export function requestedRegisteredControllers(): Type[] {
  return [...TOKENS.keys()];
}

/**
 * Injects the `RegisteredController` of a reconciler (to change its watched namespaces at run
 * time, or read its resolved configuration). The handle works from `onApplicationBootstrap` on.
 * The module providing it must be created after the class using this decorator is defined
 * (the usual case: `OperatorModule.forRoot` in the root module).
 *
 * ```ts
 * constructor(@InjectRegisteredController(WebPageReconciler) private readonly pages: RegisteredController<WebPage>) {}
 * ```
 */
export function InjectRegisteredController(reconciler: Type): PropertyDecorator & ParameterDecorator {
  return Inject(getRegisteredControllerToken(reconciler));
}
