import type { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import type { EventSourceHealth } from '../../event/event-source.js';
import type { InformerEventHandler, PrimaryInformer } from '../../event/internal/controller-event-source.js';
import { Informer } from '../../informer/informer.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';

/** Settings of {@link NamespacedInformers}. */
export interface NamespacedInformersOptions<T extends KubernetesResource> {
  readonly client: KubernetesClient;
  readonly type: ResourceType<T>;
  /** `[]` for all namespaces. */
  readonly namespaces: readonly string[];
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Reject start when a first list fails. */
  readonly failFast: boolean;
  readonly name: string;
}

/**
 * One informer per watched namespace, or one for all namespaces, behind one read API; namespaces can
 * change while running (informers of removed namespaces stop and their objects leave with delete
 * events; added ones start and replay their objects as adds).
 */
export class NamespacedInformers<T extends KubernetesResource> implements PrimaryInformer<T> {
  private readonly informers = new Map<string, Informer<T>>();
  private readonly handlers = new Set<InformerEventHandler<T>>();
  private started = false;
  private stopped = false;

  constructor(private readonly o: NamespacedInformersOptions<T>) {
    for (const ns of this.keysOf(o.namespaces)) this.informers.set(ns, this.create(ns));
  }

  /** The namespaces watched now (`[]` for all). */
  get namespaces(): string[] {
    return [...this.informers.keys()].filter((k) => k !== '*');
  }

  async start(): Promise<void> {
    this.started = true;
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.informers.values()].map((i) => i.stop()));
  }

  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.handlers.add(handler);
    const removers = [...this.informers.values()].map((i) => i.addEventHandler(this.forward(handler)));
    return () => {
      this.handlers.delete(handler);
      for (const remove of removers) remove();
    };
  }

  get(id: ResourceID): T | undefined {
    const informer = this.informers.get('*') ?? (id.namespace ? this.informers.get(id.namespace) : undefined);
    return informer?.get(id);
  }

  list(namespace?: string): T[] {
    if (namespace !== undefined) {
      return (this.informers.get('*') ?? this.informers.get(namespace))?.list(namespace) ?? [];
    }
    return [...this.informers.values()].flatMap((i) => i.list());
  }

  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced());
  }

  health(): EventSourceHealth {
    const unhealthy = [...this.informers.entries()].filter(([, i]) => !i.health().healthy);
    if (unhealthy.length === 0) return { healthy: true, status: 'synced' };
    const [ns, informer] = unhealthy[0];
    const h = informer.health();
    return {
      healthy: false,
      status: h.status,
      reason: `${ns === '*' ? 'all namespaces' : `namespace ${ns}`}: ${h.reason ?? h.status}`,
    };
  }

  cacheIfNewer(obj: T, previousResourceVersion?: string): boolean {
    const ns = obj.metadata?.namespace;
    const informer = this.informers.get('*') ?? (ns ? this.informers.get(ns) : undefined);
    return informer?.cacheIfNewer(obj, previousResourceVersion) ?? false;
  }

  /**
   * Watches other namespaces: informers of namespaces no longer watched stop (their objects are
   * reported deleted, so the controller drops their state); new ones start.
   */
  async changeNamespaces(namespaces: string[] | 'all'): Promise<void> {
    const wanted = new Set(this.keysOf(namespaces === 'all' ? [] : namespaces));
    const removed = [...this.informers.entries()].filter(([k]) => !wanted.has(k));
    for (const [key, informer] of removed) {
      this.informers.delete(key);
      await informer.stop();
      for (const obj of informer.list()) for (const h of this.handlers) h.onDelete?.(obj, true);
    }
    const added: Informer<T>[] = [];
    for (const key of wanted) {
      if (this.informers.has(key)) continue;
      const informer = this.create(key);
      this.informers.set(key, informer);
      for (const h of this.handlers) informer.addEventHandler(this.forward(h));
      added.push(informer);
    }
    if (this.started && !this.stopped) await Promise.all(added.map((i) => i.start()));
  }

  private keysOf(namespaces: readonly string[]): string[] {
    return !this.o.type.namespaced || namespaces.length === 0 ? ['*'] : [...namespaces];
  }

  private forward(handler: InformerEventHandler<T>): InformerEventHandler<T> {
    return {
      onAdd: (obj) => handler.onAdd?.(obj),
      onUpdate: (oldObj, newObj) => handler.onUpdate?.(oldObj, newObj),
      onDelete: (obj, unknown) => handler.onDelete?.(obj, unknown),
    };
  }

  private create(key: string): Informer<T> {
    return new Informer<T>({
      client: this.o.client,
      type: this.o.type,
      namespace: key === '*' ? undefined : key,
      labelSelector: this.o.labelSelector,
      fieldSelector: this.o.fieldSelector,
      clock: this.o.clock,
      logger: this.o.logger,
      failFast: this.o.failFast,
      name: key === '*' ? this.o.name : `${this.o.name}/${key}`,
    });
  }
}
