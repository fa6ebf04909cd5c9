import type { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import { KubernetesApiError } from '../../client/errors.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import type { JsonPatchOperation } from '../../client/types.js';
import { ownsExactlyStatus } from '../../dependent/internal/owned-fields.js';
import { matchesManagedFields } from '../../dependent/matchers.js';
import { mergePatchGives, OwnWrites } from '../../event/sources/own-write.js';
import type { OwnWrite } from '../../event/sources/own-write.js';
import { createMergePatch } from './merge-patch.js';

/** A write the writer sent: the object as the server returned it, and what the write did. */
export interface Written<P extends KubernetesResource> {
  readonly resource: P;
  readonly did: OwnWrite<P>;
}

/** The client calls the dispatcher makes (a subset of {@link KubernetesClient}, so tests can record them). */
export type DispatcherClient = Pick<KubernetesClient, 'get' | 'apply' | 'mergePatch' | 'jsonPatch'>;

/** How many times a finalizer change is retried on a conflict (JOSDK's value). */
export const MAX_FINALIZER_CONFLICT_RETRIES = 10;

/** Settings of a {@link PrimaryWriter}. */
export interface PrimaryWriterOptions<P extends KubernetesResource> {
  readonly type: ResourceType<P>;
  readonly client: DispatcherClient;
  readonly fieldManager: string;
  readonly useSSA: boolean;
  readonly finalizerName: string;
}

/** Whether an object carries a finalizer. */
export function hasFinalizer(resource: KubernetesResource, finalizer: string): boolean {
  return resource.metadata?.finalizers?.includes(finalizer) ?? false;
}

const SERVER_OWNED_METADATA = [
  'resourceVersion',
  'managedFields',
  'creationTimestamp',
  'uid',
  'generation',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
] as const;

/** The object without the fields the server owns (and without status): what a reconciler can change. */
function desiredState(resource: KubernetesResource): Record<string, unknown> {
  const copy = { ...(resource as Record<string, unknown>) };
  delete copy.status;
  const metadata = { ...(resource.metadata ?? {}) } as Record<string, unknown>;
  for (const key of SERVER_OWNED_METADATA) delete metadata[key];
  copy.metadata = metadata;
  return copy;
}

function isConflictLike(error: unknown, usedTest: boolean): boolean {
  return error instanceof KubernetesApiError && (error.isConflict() || (usedTest && error.isInvalid()));
}

/**
 * The framework's writes of a primary resource: finalizer add/remove, resource and status patches,
 * with server-side apply or (when off) JSON merge / JSON patch. Every method returns the object as the
 * server returned it.
 */
export class PrimaryWriter<P extends KubernetesResource> {
  constructor(private readonly o: PrimaryWriterOptions<P>) {}

  /** The same writer writing through `client` (e.g. a fenced one). */
  withClient(client: DispatcherClient): PrimaryWriter<P> {
    return new PrimaryWriter({ ...this.o, client });
  }

  /**
   * Adds the finalizer in its own write: server-side apply of just the finalizer, or a JSON patch
   * guarded by a `test` and retried on conflict. Undefined when the object is gone.
   */
  async addFinalizer(resource: P, id: ResourceID): Promise<Written<P> | undefined> {
    const { type, client, fieldManager, finalizerName } = this.o;
    if (this.o.useSSA) {
      const intent = {
        apiVersion: type.apiVersion,
        kind: type.kind,
        metadata: { name: id.name, namespace: id.namespace, finalizers: [finalizerName] },
      } as Partial<P> & { metadata: { name: string } };
      const applied = await client.apply(type, intent, { fieldManager });
      return { resource: applied, did: OwnWrites.apply(intent) };
    }
    return this.conflictRetrying(resource, id, (current) => {
      if (hasFinalizer(current, finalizerName)) return undefined;
      const finalizers = current.metadata?.finalizers;
      return finalizers
        ? [
            { op: 'test', path: '/metadata/finalizers', value: finalizers },
            { op: 'add', path: '/metadata/finalizers/-', value: finalizerName },
          ]
        : [
            { op: 'test', path: '/metadata/resourceVersion', value: current.metadata?.resourceVersion },
            { op: 'add', path: '/metadata/finalizers', value: [finalizerName] },
          ];
    });
  }

  /**
   * Removes the finalizer with a JSON patch guarded by a `test` of the finalizer list, re-reading
   * and retrying on conflict. Undefined when the object is gone (which is fine).
   */
  async removeFinalizer(resource: P, id: ResourceID): Promise<Written<P> | undefined> {
    const { finalizerName } = this.o;
    return this.conflictRetrying(resource, id, (current) => {
      const finalizers = current.metadata?.finalizers ?? [];
      const index = finalizers.indexOf(finalizerName);
      if (index < 0) return undefined;
      return [
        { op: 'test', path: '/metadata/finalizers', value: finalizers },
        { op: 'remove', path: `/metadata/finalizers/${index}` },
      ];
    });
  }

  /**
   * Patches metadata and spec. SSA: applies the desired object (server-owned fields and status
   * left out, the finalizer kept when `keepFinalizer`). Otherwise a JSON merge patch of the
   * difference to `original`, with no resourceVersion (no optimistic locking).
   *
   * Not sent (undefined) when it would change nothing on `current` (the cached object now):
   * SSA when the fields our field manager owns by apply hold exactly the intent (no field added,
   * changed or dropped; the managed-fields matcher); merge patch when the patch is empty or applying
   * it to `current` leaves it as it is. A write not sent is answered at once (no promise), so a
   * reconciliation that changes nothing does not wait a turn of the event loop for it.
   */
  patchResource(
    original: P,
    desired: P,
    id: ResourceID,
    keepFinalizer: boolean,
    current: P | undefined,
  ): Promise<Written<P>> | undefined {
    const { type, client, fieldManager, finalizerName } = this.o;
    const intent = desiredState(desired);
    if (this.o.useSSA) {
      const metadata = intent.metadata as Record<string, unknown>;
      metadata.name = id.name;
      if (id.namespace) metadata.namespace = id.namespace;
      if (keepFinalizer) {
        const finalizers = Array.isArray(metadata.finalizers) ? (metadata.finalizers as string[]) : [];
        if (!finalizers.includes(finalizerName)) metadata.finalizers = [...finalizers, finalizerName];
      }
      intent.apiVersion = type.apiVersion;
      intent.kind = type.kind;
      if (current && matchesManagedFields(current, intent as P, fieldManager)) return undefined;
      return client
        .apply(type, intent as Partial<P> & { metadata: { name: string } }, { fieldManager })
        .then((applied) => ({ resource: applied, did: OwnWrites.apply(intent) }));
    }
    const patch = createMergePatch(desiredState(original), intent);
    if (patch === undefined || (current && changesNothing(current, patch))) return undefined;
    return client
      .mergePatch(type, id, patch as object, { fieldManager })
      .then((patched) => ({ resource: patched, did: OwnWrites.mergePatch(patch as object) }));
  }

  /**
   * Patches the status subresource. SSA: applies `{apiVersion, kind, metadata: {name, namespace},
   * status}`. Otherwise a JSON merge patch of the status difference to `original` (no
   * resourceVersion, so no optimistic locking; removed or null fields are removed).
   *
   * Not sent (undefined) when it would change nothing on `current` (the cached object now): SSA
   * when the status fields our field manager owns by apply (its `status` entry of managedFields)
   * equal the intent's status exactly; merge patch when the patch is empty or applying it to
   * `current` leaves it as it is. A write not sent is answered at once (no promise).
   */
  patchStatus(
    original: P,
    desired: P,
    id: ResourceID,
    current: P | undefined,
  ): Promise<Written<P>> | undefined {
    const { type, client, fieldManager } = this.o;
    const status = (desired as { status?: unknown }).status;
    if (this.o.useSSA) {
      if (current && ownsExactlyStatus(current, status, fieldManager)) return undefined;
      const intent = {
        apiVersion: type.apiVersion,
        kind: type.kind,
        metadata: { name: id.name, ...(id.namespace ? { namespace: id.namespace } : {}) },
        status,
      } as unknown as Partial<P> & { metadata: { name: string } };
      return client
        .apply(type, intent, { fieldManager, subresource: 'status' })
        .then((applied) => ({ resource: applied, did: OwnWrites.apply(intent, 'status') }));
    }
    const patch = createMergePatch(
      { status: (original as { status?: unknown }).status },
      { status: status ?? null },
    );
    if (patch === undefined || (current && changesNothing(current, patch))) return undefined;
    return client
      .mergePatch(type, id, patch as object, { fieldManager, subresource: 'status' })
      .then((patched) => ({ resource: patched, did: OwnWrites.mergePatch(patch as object, 'status') }));
  }

  private async conflictRetrying(
    resource: P,
    id: ResourceID,
    operations: (current: P) => JsonPatchOperation[] | undefined,
  ): Promise<Written<P> | undefined> {
    const { type, client, fieldManager } = this.o;
    let current: P | undefined = resource;
    for (let attempt = 0; ; attempt++) {
      if (!current) return undefined;
      const ops = operations(current);
      // nothing to write: nothing written, so nothing of ours to cache
      if (!ops) return { resource: current, did: OwnWrites.unknown() };
      try {
        const patched = await client.jsonPatch(type, id, ops, { fieldManager });
        return { resource: patched, did: OwnWrites.jsonPatch(ops) };
      } catch (error) {
        if (error instanceof KubernetesApiError && error.isNotFound()) return undefined;
        if (!isConflictLike(error, true) || attempt + 1 >= MAX_FINALIZER_CONFLICT_RETRIES) throw error;
      }
      current = await client.get(type, id);
    }
  }
}

/** Whether a merge patch leaves `current` as it is (compared without server-maintained metadata). */
function changesNothing(current: KubernetesResource, patch: unknown): boolean {
  // comparable(applyMergePatch(current, patch)) equals comparable(current), without the copies
  return mergePatchGives(current, patch, current);
}
