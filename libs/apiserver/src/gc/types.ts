import type { JsonObject } from '../types.js';

/** How dependents are treated when an owner is deleted (`DeleteOptions.propagationPolicy`). */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/** The finalizer that makes an owner wait until its blocking dependents are gone (Foreground). */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** The finalizer that makes the garbage collector strip the owner from its dependents first (Orphan). */
export const ORPHAN_FINALIZER = 'orphan';

/** How the planner sees the API server beyond the objects it is given. */
export interface GcOptions {
  /**
   * Whether an ownerReference's `apiVersion` and `kind` name a served resource. A dependent with a
   * reference that does not resolve is left alone, as kube-controller-manager's collector leaves it
   * (no REST mapping is an error for that item, retried later): it is neither deleted nor changed.
   * Default: every reference resolves.
   */
  resolvable?: (apiVersion: string, kind: string) => boolean;
  /**
   * Whether an ownerReference's `apiVersion` and `kind` name a namespaced resource (undefined: not known).
   * A cluster-scoped object with a reference to a namespaced kind is invalid; kube-controller-manager's
   * collector never collects it (it records an `OwnerRefInvalidNamespace` warning), and an owner it
   * blocks in the foreground keeps waiting. Default: the scope of the object with the reference's uid,
   * when it is among the objects; else not namespaced.
   */
  namespaced?: (apiVersion: string, kind: string) => boolean | undefined;
}

/** A DELETE request on one stored object, with the options that steer garbage collection. */
export interface GcDeletion {
  /** `metadata.uid` of the object to delete. */
  uid: string;
  /**
   * The request's `propagationPolicy`. Default: none given, in which case a `foregroundDeletion`
   * or `orphan` finalizer already on the object decides, else Background (the engine passes the
   * kind's legacy default, if it has one, explicitly).
   */
  propagationPolicy?: PropagationPolicy;
  /** The deprecated `orphanDependents` option; when set it wins over `propagationPolicy`. Default: unset. */
  orphanDependents?: boolean;
}

/**
 * One write to apply to storage, in order. Each is what kube-apiserver (for the request) or
 * kube-controller-manager's garbage collector (for the cascade) would persist.
 */
export type GcWrite =
  | {
      /**
       * Set `metadata.deletionTimestamp` (now, unless already set) and `metadata.finalizers` to `finalizers`
       * (`deletionGracePeriodSeconds: 0`). The object stays until its finalizers are removed.
       */
      op: 'markDeleting';
      uid: string;
      finalizers: string[];
    }
  | {
      /** Set `metadata.finalizers`; a following `remove` write says when that empties a deleting object. */
      op: 'setFinalizers';
      uid: string;
      finalizers: string[];
    }
  | {
      /**
       * Set `metadata.ownerReferences` to `ownerReferences` (an update: MODIFIED). `why` is `orphan` (the owner
       * is deleted with Orphan), `dangling` (the owner is gone or being deleted in the foreground while
       * another owner remains) or `unblock` (`blockOwnerDeletion` set to false to break a foreground cycle).
       */
      op: 'setOwnerReferences';
      uid: string;
      ownerReferences: JsonObject[];
      why: 'orphan' | 'dangling' | 'unblock';
    }
  | {
      /** Remove the object from storage (DELETED). */
      op: 'remove';
      uid: string;
    };

/** The outcome of {@link planGarbageCollection}. */
export interface GcPlan {
  /** The writes, to apply in this order. Empty when nothing is to be done. */
  writes: GcWrite[];
  /**
   * Objects left being deleted that wait for something outside the garbage collector (a finalizer
   * another controller owns, or a blocking dependent held by one): plan again after they change.
   */
  waiting: string[];
}
