import type { JsonObject } from '../../types.js';
import { isObject } from '../common/json.js';
import type { ObjectService, WriteContext } from '../storage/object-service.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Store, StoreEvent } from '../storage/store.js';

const CONTROLLER: WriteContext = {
  user: { name: 'system:serviceaccount:kube-system:service-account-controller', groups: ['system:masters'] },
  fieldManager: 'kube-controller-manager',
};

/**
 * kube-controller-manager's service account controller (pkg/controller/serviceaccount): every
 * namespace that is not terminating has a `default` ServiceAccount; it is created when the
 * namespace appears and again when someone deletes it. Writes are deferred to a macrotask, as the
 * other controllers' are, so watch events keep commit order.
 */
export class ServiceAccountsController {
  private readonly unsubscribe: () => void;
  private readonly pending = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  private disposed = false;

  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly service: ObjectService,
  ) {
    this.unsubscribe = store.onChange((ev) => this.onEvent(ev));
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe();
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  private onEvent(ev: StoreEvent): void {
    if (ev.resource === '/namespaces' && ev.type === 'ADDED') this.enqueue(ev.name);
    else if (ev.resource === '/serviceaccounts' && ev.type === 'DELETED' && ev.name === 'default')
      this.enqueue(ev.namespace);
  }

  private enqueue(namespace: string): void {
    if (this.disposed) return;
    this.pending.add(namespace);
    this.scheduled ??= setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = undefined;
    const namespaces = [...this.pending];
    this.pending.clear();
    for (const ns of namespaces) {
      try {
        this.ensureDefault(ns);
      } catch {
        // a create that races another writer (AlreadyExists) leaves the account in place
      }
    }
  }

  private ensureDefault(namespace: string): void {
    if (this.disposed) return;
    const ns = this.store.get('/namespaces', '', namespace);
    if (ns === undefined) return;
    const meta = isObject(ns.metadata) ? ns.metadata : {};
    const status = isObject(ns.status) ? ns.status : {};
    if (meta.deletionTimestamp !== undefined || status.phase === 'Terminating') return;
    if (this.store.getJson('/serviceaccounts', namespace, 'default') !== undefined) return;
    const resolved = this.registry.resolve('', 'v1', 'serviceaccounts');
    if (!resolved) return;
    const account: JsonObject = { metadata: { name: 'default' } };
    this.service.create(resolved.rt, resolved.version, namespace, account, { ...CONTROLLER });
  }
}
