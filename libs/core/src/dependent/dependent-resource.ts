import type { Context } from '../api/context.js';
import type { EventSourceContext } from '../api/event-source-context.js';
import type { KubernetesResource, ResourceType } from '../api/resource-type.js';
import type { EventSource } from '../event/event-source.js';

import type { ReconcileResult } from './reconcile-result.js';

export { reconcileResult } from './reconcile-result.js';
export type { DependentOperation, ReconcileResult } from './reconcile-result.js';

/**
 * Reconciles one kind of secondary resource of a primary (JOSDK's `DependentResource`). Most
 * implementations extend {@link AbstractDependentResource} or one of the Kubernetes ones; the
 * trait interfaces ({@link Creator}, {@link Updater}, {@link Deleter}, {@link GarbageCollected})
 * say what the framework may do with the secondary.
 *
 * @typeParam R - the secondary's type.
 * @typeParam P - the primary kind.
 */
export interface DependentResource<R = unknown, P extends KubernetesResource = KubernetesResource> {
  /** Name unique within a workflow. Implementations default it to the class name. */
  readonly name: string;
  /** The Kubernetes kind of the secondary; undefined for external resources. */
  readonly resourceType?: ResourceType;
  /** Brings the secondary in line with the primary. */
  reconcile(primary: P, context: Context<P>): Promise<ReconcileResult<R>>;
  /** The secondary this dependent manages for `primary`, from its cache; undefined when absent. */
  getSecondaryResource(primary: P, context: Context<P>): R | undefined;
  /** Explicit traits (a flag left out is false); when absent they follow from the methods present (`create`, `update`, `delete`). */
  readonly traits?: DependentTraits;
  /** Present on {@link Deleter}s. */
  delete?(primary: P, context: Context<P>): Promise<void>;
}

/** What the framework may do with a dependent's secondary (JOSDK's trait interfaces as flags). */
export interface DependentTraits {
  /** Create it when missing ({@link Creator}). */
  readonly creator?: boolean;
  /** Update it when it does not match ({@link Updater}). */
  readonly updater?: boolean;
  /** Delete it ({@link Deleter}). */
  readonly deleter?: boolean;
  /** Deleted by the Kubernetes garbage collector through an owner reference ({@link GarbageCollected}); the workflow then never calls `delete`. */
  readonly garbageCollected?: boolean;
}

/** A dependent that creates missing secondaries (JOSDK's `Creator`). */
export interface Creator<R, P extends KubernetesResource = KubernetesResource> {
  create(desired: R, primary: P, context: Context<P>): Promise<R>;
}

/** A dependent that updates secondaries that do not match (JOSDK's `Updater`). */
export interface Updater<R, P extends KubernetesResource = KubernetesResource> {
  update(actual: R, desired: R, primary: P, context: Context<P>): Promise<R>;
}

/** A dependent that deletes its secondary (JOSDK's `Deleter`). */
export interface Deleter<P extends KubernetesResource = KubernetesResource> {
  delete(primary: P, context: Context<P>): Promise<void>;
}

/**
 * A deleter whose secondary the Kubernetes garbage collector removes through an owner reference
 * (JOSDK's `GarbageCollected`): workflows do not call `delete` in cleanup, only when a reconcile
 * precondition turns false.
 */
export interface GarbageCollected<P extends KubernetesResource = KubernetesResource> extends Deleter<P> {
  readonly traits: DependentTraits & { readonly garbageCollected: true };
}

/** The outcome of a {@link Matcher}. */
export interface MatchResult<R> {
  /** Whether the actual secondary matches the desired state. */
  readonly matched: boolean;
  /** The desired state computed for the comparison, if any (reused for the update). */
  readonly computedDesired?: R;
}

/** Custom matching of actual against desired state (JOSDK's `Matcher`). */
export interface Matcher<R, P extends KubernetesResource = KubernetesResource> {
  match(actual: R, primary: P, context: Context<P>): MatchResult<R> | Promise<MatchResult<R>>;
}

/**
 * A dependent that brings its own event source (JOSDK's `EventSourceProvider` and
 * `EventSourceReferencer`): managed workflows register it with the controller, or hand the
 * dependent a shared one (`useEventSourceWithName`).
 */
export interface EventSourceProvider<P extends KubernetesResource = KubernetesResource> {
  /** The name its event source is registered under. */
  readonly eventSourceName: string;
  /** Creates (once) and returns the event source. */
  eventSource(context: EventSourceContext<P>): EventSource;
  /** Uses an existing event source instead of creating one. */
  useEventSource(source: EventSource): void;
}

/** Whether a dependent provides an event source. */
export function isEventSourceProvider(value: unknown): value is EventSourceProvider {
  const v = value as Partial<EventSourceProvider>;
  return typeof v?.eventSource === 'function' && typeof v.useEventSource === 'function';
}

/** Anything whose traits can be read (every {@link DependentResource}). */
export interface TraitCarrier {
  readonly traits?: DependentTraits;
}

/** The resolved traits of a dependent: its explicit `traits` (missing flags false), else from its methods. */
export function traitsOf(dependent: TraitCarrier): Required<DependentTraits> {
  const t = dependent.traits;
  if (t) {
    return {
      creator: t.creator ?? false,
      updater: t.updater ?? false,
      deleter: Boolean(t.deleter || t.garbageCollected),
      garbageCollected: t.garbageCollected ?? false,
    };
  }
  const d = dependent as unknown as Record<string, unknown>;
  return {
    creator: typeof d['create'] === 'function',
    updater: typeof d['update'] === 'function',
    deleter: typeof d['delete'] === 'function',
    garbageCollected: false,
  };
}

/** Whether a dependent creates missing secondaries. */
export function isCreator(dependent: TraitCarrier): boolean {
  return traitsOf(dependent).creator;
}
/** Whether a dependent updates secondaries that do not match. */
export function isUpdater(dependent: TraitCarrier): boolean {
  return traitsOf(dependent).updater;
}
/** Whether a dependent can delete its secondary. */
export function isDeleter(dependent: TraitCarrier): boolean {
  return traitsOf(dependent).deleter;
}
/** Whether a dependent's secondary is garbage collected through an owner reference. */
export function isGarbageCollected(dependent: TraitCarrier): boolean {
  return traitsOf(dependent).garbageCollected;
}
/** Whether a workflow cleanup calls the dependent's `delete` (a deleter that is not garbage collected). */
export function isDeletable(dependent: TraitCarrier): boolean {
  const t = traitsOf(dependent);
  return t.deleter && !t.garbageCollected;
}
