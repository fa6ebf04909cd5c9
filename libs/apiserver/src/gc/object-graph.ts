import type { JsonObject } from '../types.js';
import { GarbageCollectionError } from './gc-error.js';
import { FOREGROUND_FINALIZER } from './types.js';

/** The parts of a stored object the garbage collector looks at, mutable during a plan. */
export interface GcNode {
  uid: string;
  apiVersion: string;
  kind: string;
  name: string;
  /** `''` for cluster-scoped objects. */
  namespace: string;
  deleting: boolean;
  finalizers: string[];
  ownerReferences: JsonObject[];
}

function asObject(v: unknown): JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The API group of an `apiVersion` (`apps/v1` → `apps`, `v1` → ``). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The objects of a plan by uid, with the ownership relations of Kubernetes' garbage collector. */
export class ObjectGraph {
  private readonly nodes = new Map<string, GcNode>();

  constructor(objects: readonly JsonObject[]) {
    for (const obj of objects) {
      const meta = asObject(obj.metadata);
      const uid = str(meta.uid);
      if (!uid)
        throw new GarbageCollectionError(
          'InvalidObject',
          `an object without metadata.uid: ${JSON.stringify(meta.name ?? null)}`,
        );
      this.nodes.set(uid, {
        uid,
        apiVersion: str(obj.apiVersion),
        kind: str(obj.kind),
        name: str(meta.name),
        namespace: str(meta.namespace),
        deleting: meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null,
        finalizers: Array.isArray(meta.finalizers)
          ? meta.finalizers.filter((f): f is string => typeof f === 'string')
          : [],
        ownerReferences: Array.isArray(meta.ownerReferences)
          ? meta.ownerReferences.map((r) => ({ ...asObject(r) }))
          : [],
      });
    }
  }

  get(uid: string): GcNode | undefined {
    return this.nodes.get(uid);
  }

  /** Every node, in the order the objects were given. */
  all(): GcNode[] {
    return [...this.nodes.values()];
  }

  remove(uid: string): void {
    this.nodes.delete(uid);
  }

  /**
   * The owner an ownerReference of `dependent` points at, or undefined when the reference dangles:
   * no object with that uid, or one whose kind, group or name differ (the collector looks the owner up
   * by kind and name and compares uids), or a namespaced owner in another namespace than the dependent
   * (owners of namespaced objects must be in the same namespace or cluster-scoped; a cluster-scoped
   * object can only be owned by cluster-scoped ones).
   */
  ownerOf(dependent: GcNode, ref: JsonObject): GcNode | undefined {
    const owner = this.nodes.get(str(ref.uid));
    if (!owner) return undefined;
    if (owner.kind !== str(ref.kind) || owner.name !== str(ref.name)) return undefined;
    if (groupOf(owner.apiVersion) !== groupOf(str(ref.apiVersion))) return undefined;
    if (owner.namespace !== '' && owner.namespace !== dependent.namespace) return undefined;
    return owner;
  }

  /**
   * Objects with an ownerReference carrying `owner`'s uid. As in the collector's graph (graph_builder.go
   * addDependentToOwners), a dependent is attached by uid alone, whether or not its reference resolves
   * (another namespace, name or kind): such a dependent is then classified, and collected when its
   * references dangle, by {@link ownerOf}.
   */
  dependentsOf(owner: GcNode): GcNode[] {
    return this.all().filter((n) => n.ownerReferences.some((r) => r.uid === owner.uid));
  }

  /** Dependents whose reference to `owner` has `blockOwnerDeletion: true`: a foreground deletion waits for them. */
  blockingDependentsOf(owner: GcNode): GcNode[] {
    return this.all().filter((n) =>
      n.ownerReferences.some((r) => r.uid === owner.uid && r.blockOwnerDeletion === true),
    );
  }
}

/** Whether the node is being deleted in the foreground (waits for its dependents). */
export function isDeletingDependents(n: GcNode): boolean {
  return n.deleting && n.finalizers.includes(FOREGROUND_FINALIZER);
}
