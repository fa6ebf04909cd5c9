import { AsyncLocalStorage } from 'node:async_hooks';
import type { KubernetesResource } from '../api/resource-type.js';

/**
 * The resource context of a reconciliation (JOSDK's MDC keys), available to every log line written
 * while a reconcile or cleanup runs. Keys that the resource lacks are left out.
 */
export interface ResourceContext {
  readonly 'resource.apiVersion'?: string;
  readonly 'resource.kind'?: string;
  readonly 'resource.name'?: string;
  readonly 'resource.namespace'?: string;
  readonly 'resource.resourceVersion'?: string;
  readonly 'resource.generation'?: number;
  readonly 'resource.uid'?: string;
  /** The controller running the reconciliation. */
  readonly controller: string;
}

const storage = new AsyncLocalStorage<ResourceContext>();

/** The context of a resource, for a controller. */
export function resourceContextOf(resource: KubernetesResource, controller: string): ResourceContext {
  const m = resource.metadata ?? {};
  const ctx: Record<string, unknown> = { controller };
  if (resource.apiVersion) ctx['resource.apiVersion'] = resource.apiVersion;
  if (resource.kind) ctx['resource.kind'] = resource.kind;
  if (m.name) ctx['resource.name'] = m.name;
  if (m.namespace) ctx['resource.namespace'] = m.namespace;
  if (m.resourceVersion) ctx['resource.resourceVersion'] = m.resourceVersion;
  if (m.generation !== undefined) ctx['resource.generation'] = m.generation;
  if (m.uid) ctx['resource.uid'] = m.uid;
  return Object.freeze(ctx) as unknown as ResourceContext;
}

/**
 * The resource context of the reconciliation the caller runs in (through any number of awaits), or
 * undefined outside one. Logging integrations add it to every line.
 */
export function currentResourceContext(): ResourceContext | undefined {
  return storage.getStore();
}

/** Runs `fn` with `context` as the current resource context. */
export function runWithResourceContext<T>(context: ResourceContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * Runs `fn` outside any resource context: for work that outlives the caller's reconciliation and
 * is not about its resource (an informer or event source started while a reconcile runs, the
 * processing of events about other resources). JOSDK's MDC is per thread and removed in `finally`;
 * AsyncLocalStorage would otherwise hand the context on to everything started from the reconcile.
 * Costs nothing outside a resource context.
 */
export function outsideResourceContext<T>(fn: () => T): T {
  return storage.getStore() === undefined ? fn() : storage.exit(fn);
}
