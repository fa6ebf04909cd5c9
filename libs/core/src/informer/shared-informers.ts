import type { KubernetesResource } from '../api/resource-type.js';
import { InformerUsageError } from './errors.js';
import { Informer } from './informer.js';
import type { InformerOptions } from './informer.js';

/** What {@link SharedInformers.acquire} hands out: the shared informer and the way to let go of it. */
export interface SharedInformerLease<T extends KubernetesResource> {
  /** The informer shared by every user of the same selection. Do not stop it: call `release`. */
  readonly informer: Informer<T>;
  /** Resolves when the shared informer has listed (it starts on the first acquire). */
  readonly started: Promise<void>;
  /** Lets go of the informer; the last release stops it. Idempotent per lease. */
  release(): Promise<void>;
}

interface Entry {
  informer: Informer<KubernetesResource>;
  started: Promise<void>;
  users: number;
  stopping?: Promise<void>;
}

/**
 * Reference-counted informers shared between users that watch the same selection (JOSDK 5.6's
 * shared informers, client-go's `SharedInformerFactory`): one list, one watch and one cache per
 * kind, namespace, label selector, field selector and metadata-only flag, however many event
 * sources or controllers use it; it starts with its first user and stops when the last releases it.
 *
 * Informers with a `transform` are shared only with users passing the same function (the cache
 * holds transformed objects). Options other than the selection (backoff, page size, timeouts,
 * logger) come from the first user.
 *
 * ```ts
 * const shared = new SharedInformers();
 * const lease = shared.acquire({ client, type: ResourceTypes.Secret, namespace: 'web' });
 * await lease.started;
 * lease.informer.addEventHandler({ onAdd: (s) => console.log(s.metadata?.name) });
 * // ...
 * await lease.release();
 * ```
 */
export class SharedInformers {
  private readonly entries = new Map<string, Entry>();
  private readonly transforms = new WeakMap<object, number>();
  private nextTransform = 1;

  /**
   * Takes a share of the informer for this selection, creating and starting it when it is the
   * first. A first list that fails (failFast) rejects `started` for every user of that attempt and
   * frees the entry, so a later acquire tries again.
   * @throws InformerUsageError when an option is out of range (as `new Informer`).
   */
  acquire<T extends KubernetesResource>(options: InformerOptions<T>): SharedInformerLease<T> {
    const key = this.keyOf(options);
    let entry = this.entries.get(key);
    if (!entry || entry.stopping) {
      const informer = new Informer<T>(options) as unknown as Informer<KubernetesResource>;
      const created: Entry = { informer, users: 0, started: informer.start() };
      created.started.catch(() => {
        if (this.entries.get(key) === created) this.entries.delete(key);
      });
      entry = created;
      this.entries.set(key, entry);
    }
    const held = entry;
    held.users++;
    let released = false;
    return {
      informer: held.informer as unknown as Informer<T>,
      started: held.started,
      release: async () => {
        if (released) return;
        released = true;
        held.users--;
        if (held.users > 0) return;
        held.stopping = held.informer.stop();
        if (this.entries.get(key) === held) this.entries.delete(key);
        await held.stopping;
      },
    };
  }

  /** Informers running now (one per shared selection). */
  get size(): number {
    return this.entries.size;
  }

  private keyOf<T extends KubernetesResource>(options: InformerOptions<T>): string {
    const { type } = options;
    if (!options.client || !type)
      throw new InformerUsageError('an informer needs a client and a resource type');
    let transform = 0;
    if (options.transform) {
      transform = this.transforms.get(options.transform) ?? this.nextTransform++;
      this.transforms.set(options.transform, transform);
    }
    return JSON.stringify([
      this.clientId(options.client),
      type.apiVersion,
      type.kind,
      type.namespaced ? options.namespace || '' : '',
      options.labelSelector ?? '',
      options.fieldSelector ?? '',
      options.metadataOnly === true,
      transform,
    ]);
  }

  private readonly clients = new WeakMap<object, number>();
  private nextClient = 1;

  private clientId(client: object): number {
    let id = this.clients.get(client);
    if (id === undefined) {
      id = this.nextClient++;
      this.clients.set(client, id);
    }
    return id;
  }
}
