import type { JsonObject } from '../types.js';
import { GarbageCollectionError } from './gc-error.js';
import type { GcNode } from './object-graph.js';
import { isDeletingDependents, ObjectGraph } from './object-graph.js';
import type { GcDeletion, GcOptions, GcPlan, GcWrite, PropagationPolicy } from './types.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './types.js';

/**
 * The finalizers an object gets when deleted with these options (kube-apiserver's
 * `deletionFinalizersForGarbageCollection`): `orphan` and `foregroundDeletion` are removed, then the
 * one the options ask for is added; with no option, one already present on the object stays.
 */
export function deletionFinalizers(
  current: readonly string[],
  options: { propagationPolicy?: PropagationPolicy; orphanDependents?: boolean },
): string[] {
  let policy: PropagationPolicy | undefined;
  if (options.orphanDependents !== undefined) policy = options.orphanDependents ? 'Orphan' : 'Background';
  else if (options.propagationPolicy !== undefined) policy = options.propagationPolicy;
  else if (current.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
  else if (current.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
  const out = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (policy === 'Orphan') out.push(ORPHAN_FINALIZER);
  if (policy === 'Foreground') out.push(FOREGROUND_FINALIZER);
  return out;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

/** A plan being built: the graph is changed as the writes are recorded. */
class Planner {
  readonly writes: GcWrite[] = [];

  constructor(
    readonly graph: ObjectGraph,
    private readonly resolvable: GcOptions['resolvable'] = undefined,
    private readonly namespaced: GcOptions['namespaced'] = undefined,
  ) {}

  /**
   * Whether a reference names a namespaced kind: the option's answer, else the scope of the object
   * with the reference's uid, when there is one.
   */
  private namesNamespacedKind(ref: JsonObject): boolean {
    const answer = this.namespaced?.(text(ref.apiVersion), text(ref.kind));
    if (answer !== undefined) return answer;
    const owner = this.graph.get(text(ref.uid));
    return owner !== undefined && owner.namespace !== '';
  }

  /** A DELETE of `node` with these options, as the API server handles it. Returns whether anything changed. */
  delete(
    node: GcNode,
    options: { propagationPolicy?: PropagationPolicy; orphanDependents?: boolean },
  ): boolean {
    const finalizers = deletionFinalizers(node.finalizers, options);
    if (finalizers.length === 0) {
      this.graph.remove(node.uid);
      this.writes.push({ op: 'remove', uid: node.uid });
      return true;
    }
    if (node.deleting && sameSet(finalizers, node.finalizers)) return false;
    node.deleting = true;
    node.finalizers = finalizers;
    this.writes.push({ op: 'markDeleting', uid: node.uid, finalizers: [...finalizers] });
    return true;
  }

  /** Removes one finalizer; a deleting object left without finalizers is removed. */
  removeFinalizer(node: GcNode, finalizer: string): void {
    node.finalizers = node.finalizers.filter((f) => f !== finalizer);
    this.writes.push({ op: 'setFinalizers', uid: node.uid, finalizers: [...node.finalizers] });
    if (node.deleting && node.finalizers.length === 0) {
      this.graph.remove(node.uid);
      this.writes.push({ op: 'remove', uid: node.uid });
    }
  }

  setOwnerReferences(node: GcNode, refs: JsonObject[], why: 'orphan' | 'dangling' | 'unblock'): void {
    node.ownerReferences = refs;
    this.writes.push({
      op: 'setOwnerReferences',
      uid: node.uid,
      ownerReferences: refs.map((r) => ({ ...r })),
      why,
    });
  }

  /** The garbage collector's `attemptToOrphan`: strip the owner from its dependents, then drop `orphan`. */
  orphan(owner: GcNode): void {
    for (const dep of this.graph.dependentsOf(owner)) {
      this.setOwnerReferences(
        dep,
        dep.ownerReferences.filter((r) => r.uid !== owner.uid),
        'orphan',
      );
    }
    this.removeFinalizer(owner, ORPHAN_FINALIZER);
  }

  /** The collector's `processDeletingDependentsItem`: release the owner once no dependent blocks it. */
  finishForeground(owner: GcNode): boolean {
    if (this.graph.blockingDependentsOf(owner).length > 0) return false;
    this.removeFinalizer(owner, FOREGROUND_FINALIZER);
    return true;
  }

  /** The collector's `attemptToDeleteItem` for an object that has owner references. Returns whether anything changed. */
  attemptToDelete(node: GcNode): boolean {
    if (node.deleting) return false; // deleting ones wait for their finalizers (foreground ones are handled apart)
    if (node.ownerReferences.length === 0) return false;
    // a reference to a kind that is not served: the collector cannot classify it and leaves the item
    const resolvable = this.resolvable;
    if (resolvable && node.ownerReferences.some((r) => !resolvable(text(r.apiVersion), text(r.kind))))
      return false;
    // a cluster-scoped object cannot be owned by a namespaced one: the collector gives up on the item
    // (isDangling's namespacedOwnerOfClusterScopedObjectErr), which is then neither deleted nor changed
    if (node.namespace === '' && node.ownerReferences.some((r) => this.namesNamespacedKind(r))) return false;
    const solid: JsonObject[] = [];
    const dangling: JsonObject[] = [];
    const waiting: JsonObject[] = [];
    for (const ref of node.ownerReferences) {
      const owner = this.graph.ownerOf(node, ref);
      if (!owner) dangling.push(ref);
      else if (isDeletingDependents(owner)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return false;
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      this.setOwnerReferences(
        node,
        node.ownerReferences.filter((r) => !drop.has(r.uid)),
        'dangling',
      );
      return true;
    }
    const ownDependents = this.graph.dependentsOf(node);
    if (waiting.length > 0 && ownDependents.length > 0) {
      // A dependent already waiting on its own dependents may be waiting on us: break the cycle.
      if (
        ownDependents.some(isDeletingDependents) &&
        node.ownerReferences.some((r) => r.blockOwnerDeletion === true)
      ) {
        this.setOwnerReferences(
          node,
          node.ownerReferences.map((r) =>
            r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r,
          ),
          'unblock',
        );
      }
      return this.delete(node, { propagationPolicy: 'Foreground' });
    }
    // No owner left: collect it, honouring a propagation finalizer it already carries.
    const policy: PropagationPolicy = node.finalizers.includes(ORPHAN_FINALIZER)
      ? 'Orphan'
      : node.finalizers.includes(FOREGROUND_FINALIZER)
        ? 'Foreground'
        : 'Background';
    return this.delete(node, { propagationPolicy: policy });
  }

  /** One pass over every object; returns whether anything changed. */
  pass(): boolean {
    let changed = false;
    for (const node of this.graph.all()) {
      if (this.graph.get(node.uid) !== node) continue; // removed earlier in this pass
      if (node.deleting && node.finalizers.includes(ORPHAN_FINALIZER)) {
        this.orphan(node);
        changed = true;
        continue;
      }
      if (isDeletingDependents(node)) {
        if (this.finishForeground(node)) changed = true;
        continue;
      }
      if (this.attemptToDelete(node)) changed = true;
    }
    return changed;
  }
}

/**
 * Plans garbage collection as Kubernetes does it (the API server's handling of a DELETE plus the
 * garbage collector of kube-controller-manager run until nothing more happens), as a pure function:
 *
 * - **Background** (default): the object is removed (or marked deleting while other finalizers remain);
 *   then every object whose owners are all gone is deleted in turn, down the ownership tree; a
 *   dependent that still has another live owner only loses the dangling reference.
 * - **Foreground**: the object gets `deletionTimestamp` and the `foregroundDeletion` finalizer; its
 *   dependents are deleted (those that have dependents of their own in the foreground too); the
 *   finalizer is removed, and the object with it, once no dependent with `blockOwnerDeletion: true`
 *   remains. Dependents without `blockOwnerDeletion` are deleted but do not hold the owner.
 * - **Orphan**: the object gets the `orphan` finalizer; its dependents lose their ownerReference to
 *   it; then the finalizer is removed (and the object, unless other finalizers remain).
 *
 * Objects held by finalizers the garbage collector does not own stay (listed in `waiting`): call
 * again with no `deletion` after they change (e.g. an operator removed its finalizer) to continue.
 *
 * @param objects - every stored object that may take part (owners and dependents of all kinds), as stored.
 * @param deletion - the DELETE request to apply first. Default: none, only the collector runs.
 * @param options - what else the planner needs to know (see {@link GcOptions}).
 * @throws GarbageCollectionError `UnknownObject` when `deletion.uid` is not among `objects`,
 *   `InvalidObject` for an object without uid.
 */
export function planGarbageCollection(
  objects: readonly JsonObject[],
  deletion?: GcDeletion,
  options: GcOptions = {},
): GcPlan {
  const graph = new ObjectGraph(objects);
  const planner = new Planner(graph, options.resolvable, options.namespaced);
  if (deletion) {
    const target = graph.get(deletion.uid);
    if (!target)
      throw new GarbageCollectionError('UnknownObject', `no object with uid ${JSON.stringify(deletion.uid)}`);
    const options: { propagationPolicy?: PropagationPolicy; orphanDependents?: boolean } = {};
    if (deletion.propagationPolicy !== undefined) options.propagationPolicy = deletion.propagationPolicy;
    if (deletion.orphanDependents !== undefined) options.orphanDependents = deletion.orphanDependents;
    planner.delete(target, options);
  }
  // Every pass removes an object, a finalizer or an ownerReference, or marks an object deleting;
  // so the number of passes is bounded by what there is to change.
  const limit = 4 * objects.length + 4 + objects.reduce((n, o) => n + ownerRefCount(o), 0);
  let passes = 0;
  while (planner.pass()) {
    if (++passes > limit)
      throw new GarbageCollectionError(
        'NoFixedPoint',
        `garbage collection did not settle after ${limit} passes`,
      );
  }
  const waiting = graph
    .all()
    .filter((n) => n.deleting)
    .map((n) => n.uid);
  return { writes: planner.writes, waiting };
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function ownerRefCount(obj: JsonObject): number {
  const meta = obj.metadata as { ownerReferences?: unknown } | undefined;
  return Array.isArray(meta?.ownerReferences) ? meta.ownerReferences.length : 0;
}
