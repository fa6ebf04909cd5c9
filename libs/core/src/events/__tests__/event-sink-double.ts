import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import type { ResourceID } from '../../api/resource-id.js';
import { KubernetesApiError } from '../../client/errors.js';
import type { EventClient } from '../event-recorder.js';
import type { KubernetesEvent } from '../kubernetes-event.js';

/** A `KubernetesClient` double that stores Events in memory and can fail the next requests. */
export class EventSinkDouble implements EventClient {
  readonly events = new Map<string, KubernetesEvent>();
  readonly calls: Array<{ verb: 'create' | 'patch'; key: string; body: unknown }> = [];
  /** Errors thrown by the next requests, first one first. */
  readonly failures: Error[] = [];

  list(): KubernetesEvent[] {
    return [...this.events.values()];
  }

  async create<T extends KubernetesResource>(_type: ResourceType<T>, obj: T): Promise<T> {
    const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
    this.calls.push({ verb: 'create', key, body: structuredClone(obj) });
    const failure = this.failures.shift();
    if (failure) throw failure;
    if (this.events.has(key)) throw new KubernetesApiError(409, { reason: 'AlreadyExists', message: key });
    this.events.set(key, structuredClone(obj) as unknown as KubernetesEvent);
    return obj;
  }

  async mergePatch<T extends KubernetesResource>(
    _type: ResourceType<T>,
    id: ResourceID,
    patch: object,
  ): Promise<T> {
    this.calls.push({ verb: 'patch', key: id.key, body: structuredClone(patch) });
    const failure = this.failures.shift();
    if (failure) throw failure;
    const current = this.events.get(id.key);
    if (!current) throw new KubernetesApiError(404, { reason: 'NotFound', message: id.key });
    const next = { ...current, ...patch };
    this.events.set(id.key, next);
    return next as unknown as T;
  }
}
