import type { KubernetesResource } from '../api/resource-type.js';
import { managedFieldsTransform } from '../cache/managed-fields.js';
import type { ManagedFieldsPolicy } from '../cache/managed-fields.js';
import { InformerUsageError } from './errors.js';
import { Informer } from './informer.js';
import type { InformerOptions, InformerView } from './informer.js';

/** What {@link SharedInformers.acquire} hands out: this user's view of the shared informer and the way to let go of it. */
export interface SharedInformerLease<T extends KubernetesResource> {
  /** The informer shared by every user of the same selection. Do not stop it (call `release`), and read and subscribe through `view`. */
  readonly informer: Informer<T>;
  /**
   * This user's view: the shared cache with this user's own event handlers, indexes and own writes
   * (none of which the other users see). Closed by `release`.
   */
  readonly view: InformerView<T>;
  /** Whether the informer is shared with others (false for options that are never shared, e.g. `admit`). */
  readonly shareable: boolean;
  /**
   * Starts the shared informer unless it runs already; resolves when its first list attempt is over
   * (at once for an informer that has listed). With this user's `failFast` (the default) it rejects
   * with the `InformerStartError` of the first list when no list has succeeded yet, also for a user
   * joining an informer that is still failing; the informer keeps retrying for users without
   * `failFast`. Release the lease either way. Calling it again returns the same promise.
   * @throws InformerUsageError (rejected) after `release`.
   */
  start(): Promise<void>;
  /** Lets go of the informer (closes `view`); the last release stops it. Idempotent per lease. */
  release(): Promise<void>;
}

interface Entry {
  informer: Informer<KubernetesResource>;
  users: number;
  starting?: Promise<void>;
  stopping?: Promise<void>;
}

/**
 * Reference-counted informers shared between users that watch the same selection (JOSDK 5.6's
 * shared informers, client-go's `SharedInformerFactory`): one list, one watch and one cache per
 * client, kind, namespace, label selector, field selector and metadata-only flag, however many event
 * sources or controllers use it; it starts with its first user and stops when the last releases it.
 * Every `Operator` has one (its controllers' primary informers and every `InformerEventSource`
 * built with the operator's context use it), so three controllers of Secrets in one namespace make
 * one list and one watch.
 *
 * Per user, through the lease's `view`: event handlers, indexes (kept under a name private to the
 * user; another user neither sees nor computes them) and own writes (`cacheIfNewer`: read only by
 * their writer, and the one watch event of the write is reported against it to that writer only).
 *
 * Informers with a `transform` are shared only with users passing the same function (the cache
 * holds transformed objects; {@link SharedInformers.managedFieldsTransform} hands out one function
 * per policy so that managed-fields pruning does not prevent sharing). An informer with `admit` is
 * never shared. Options other than the selection (backoff, page size, timeouts, logger, clock) come
 * from the first user; the shared informer itself never fails fast (see the lease's `start`).
 *
 * ```ts
 * const shared = new SharedInformers();
 * const lease = shared.acquire({ client, type: ResourceTypes.Secret, namespace: 'web' });
 * lease.view.addEventHandler({ onAdd: (s) => console.log(s.metadata?.name) });
 * await lease.start();
 * // ...
 * await lease.release();
 * ```
 */
export class SharedInformers {
  private readonly entries = new Map<string, Entry>();
  private readonly transforms = new WeakMap<object, number>();
  private nextTransform = 1;
  private readonly fieldManagers = new Set<string>();
  private readonly pruners = new Map<string, (obj: KubernetesResource) => KubernetesResource>();

  /**
   * Takes a share of the informer for this selection, creating it when it is the first; the first
   * user's `start()` starts it. The view is open at once (add handlers and indexes before or after
   * start; a handler added to a running informer gets its cached objects replayed as adds).
   * @throws InformerUsageError when an option is out of range (as `new Informer`).
   */
  acquire<T extends KubernetesResource>(options: InformerOptions<T>): SharedInformerLease<T> {
    const shareable = !options.admit;
    const key = shareable ? this.keyOf(options) : undefined;
    let entry = key === undefined ? undefined : this.entries.get(key);
    if (!entry || entry.stopping) {
      const informer = new Informer<T>({
        ...options,
        failFast: false,
      }) as unknown as Informer<KubernetesResource>;
      entry = { informer, users: 0 };
      if (key !== undefined) this.entries.set(key, entry);
    }
    const held = entry;
    held.users++;
    const informer = held.informer as unknown as Informer<T>;
    const view = informer.openView();
    const failFast = options.failFast ?? true;
    let released = false;
    let started: Promise<void> | undefined;
    return {
      informer,
      view,
      shareable,
      start: () => {
        if (released) {
          return Promise.reject(new InformerUsageError(`informer ${informer.name}: start() after release()`));
        }
        if (!held.starting) {
          held.starting = informer.start();
          held.starting.catch(() => undefined); // each user's start() reports it
        }
        started ??= held.starting.then(() => {
          const failure = informer.startFailure();
          if (failFast && failure && !informer.hasSynced()) throw failure;
        });
        return started;
      },
      release: async () => {
        if (released) return;
        released = true;
        view.close();
        held.users--;
        if (held.users > 0) return;
        held.stopping = held.informer.stop();
        if (key !== undefined && this.entries.get(key) === held) this.entries.delete(key);
        await held.stopping;
      },
    };
  }

  /** Shareable informers held now (one per selection; informers with `admit` are not counted). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Declares a field manager of this operator (the `Operator` declares each controller's at
   * registration), so that {@link SharedInformers.managedFieldsTransform} with `keepOwn` keeps its
   * entries in shared caches. Declare before the informers start: objects cached earlier keep only
   * the entries of the managers declared then.
   */
  addFieldManager(name: string): void {
    this.fieldManagers.add(name);
  }

  /**
   * One managed-fields transform per policy, to pass as `transform`, so users with the same policy
   * share a cache. `keepOwn` for a declared manager ({@link SharedInformers.addFieldManager}) keeps
   * the entries of every declared manager (each user still finds its own; the others cost a few
   * entries per object); for an undeclared one it keeps that manager's entries and is shared with
   * users of that manager only. `keepAll` needs no transform (undefined).
   */
  managedFieldsTransform<T extends KubernetesResource>(
    policy: ManagedFieldsPolicy,
    fieldManager: string,
  ): ((obj: T) => T) | undefined {
    if (policy === 'keepAll') return undefined;
    const declared = policy === 'keepOwn' && this.fieldManagers.has(fieldManager);
    const key = policy === 'dropAll' ? 'dropAll' : declared ? 'keepOwn' : `keepOwn:${fieldManager}`;
    let pruner = this.pruners.get(key);
    if (!pruner) {
      // the declared managers' transform reads the live set: every controller is registered (and
      // declared) before any informer lists
      pruner = declared
        ? keepEntriesOf(this.fieldManagers)
        : managedFieldsTransform<KubernetesResource>(policy, [fieldManager])!;
      this.pruners.set(key, pruner);
    }
    return pruner as unknown as (obj: T) => T;
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

/**
 * `keepOwn` pruning for a set of managers that may still grow: `managedFieldsTransform` reads a Set
 * at each call (and copies without `delete`, which would make every cached metadata a V8 hash table).
 */
function keepEntriesOf(managers: ReadonlySet<string>): (obj: KubernetesResource) => KubernetesResource {
  return managedFieldsTransform<KubernetesResource>('keepOwn', managers)!;
}
