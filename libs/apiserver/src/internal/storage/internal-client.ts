import type { JsonObject } from '../../types.js';
import { str } from '../common/json.js';
import { errors } from '../common/errors.js';
import type { DeleteOptions, DeleteResult, ObjectService, PatchType } from './object-service.js';
import type { ResolvedResource, ResourceRegistry } from '../resources/registry.js';
import { storageKey } from '../resources/resource-type.js';
import type { ChangeListener, Store } from './store.js';

const SYSTEM = {
  user: { name: 'system:apiserver', groups: ['system:masters'] },
  fieldManager: 'kube-apiserver',
};

/**
 * An in-process client over the server's semantics, for controllers inside the server (garbage
 * collection, namespace termination, workload simulation). Addressed by group, version, plural.
 */
export class InternalClient {
  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly service: ObjectService,
  ) {}

  private resolve(group: string, version: string, plural: string): ResolvedResource {
    const r = this.registry.resolve(group, version, plural);
    if (!r) throw errors.notFound({ group, resource: plural });
    return r;
  }

  get(
    group: string,
    version: string,
    plural: string,
    namespace: string,
    name: string,
  ): JsonObject | undefined {
    const { rt, version: v } = this.resolve(group, version, plural);
    const o = this.store.get(storageKey(rt), rt.namespaced ? namespace : '', name);
    return o ? this.service.present(rt, v, o) : undefined;
  }

  list(group: string, version: string, plural: string, namespace?: string): JsonObject[] {
    const { rt, version: v } = this.resolve(group, version, plural);
    return this.store
      .list(storageKey(rt), rt.namespaced ? namespace : undefined)
      .map((o) => this.service.present(rt, v, o));
  }

  create(group: string, version: string, plural: string, namespace: string, obj: JsonObject): JsonObject {
    const { rt, version: v } = this.resolve(group, version, plural);
    return this.service.create(rt, v, namespace, obj, SYSTEM);
  }

  update(
    group: string,
    version: string,
    plural: string,
    namespace: string,
    obj: JsonObject,
    subresource?: string,
  ): JsonObject {
    const { rt, version: v } = this.resolve(group, version, plural);
    const name = str((obj.metadata as JsonObject | undefined)?.name ?? '');
    return this.service.update(rt, v, namespace, name, obj, SYSTEM, subresource);
  }

  patch(
    group: string,
    version: string,
    plural: string,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    subresource?: string,
  ): JsonObject {
    const { rt, version: v } = this.resolve(group, version, plural);
    return this.service.patch(rt, v, namespace, name, type, patch, SYSTEM, subresource);
  }

  delete(
    group: string,
    version: string,
    plural: string,
    namespace: string,
    name: string,
    opts: DeleteOptions = {},
  ): DeleteResult {
    const { rt, version: v } = this.resolve(group, version, plural);
    return this.service.delete(rt, v, namespace, name, opts, SYSTEM);
  }

  /** Listens to every committed change (in commit order; do not write from inside the listener). */
  onChange(listener: ChangeListener): () => void {
    // the parsed object is the server's own; a public listener gets the event only
    return this.store.onChange((ev) => listener(ev));
  }
}
