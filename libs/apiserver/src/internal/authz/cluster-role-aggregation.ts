import type { JsonObject } from '../../types.js';
import { isObject, metaOf, str } from '../common/json.js';
import type { Peers } from '../common/peers.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ObjectService, WriteContext } from '../storage/object-service.js';
import type { Store } from '../storage/store.js';

const CLUSTER_ROLES = 'rbac.authorization.k8s.io/clusterroles';
const CONTEXT: WriteContext = {
  user: { name: 'system:kube-controller-manager', groups: ['system:masters'] },
  fieldManager: 'clusterrole-aggregation-controller',
};

/** A rule with empty lists dropped and its keys in one order, for kube's semantic equality. */
function normalised(rule: unknown): string {
  const o = isObject(rule) ? rule : {};
  const out: Record<string, unknown> = {};
  for (const k of ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs']) {
    const v = o[k];
    if (Array.isArray(v) && v.length > 0) out[k] = v;
  }
  return JSON.stringify(out);
}

/**
 * kube-controller-manager's ClusterRole aggregation controller: the `rules` of every ClusterRole
 * with an `aggregationRule` are rewritten to the rules of the ClusterRoles its selectors select
 * (selector by selector, those roles in name order, itself left out, duplicates dropped), whenever
 * a ClusterRole changes. Aggregated roles selecting aggregated roles follow in turn. Writes run on a
 * later macrotask, as the server's other controllers do.
 */
export class ClusterRoleAggregation {
  private readonly unsubscribe: () => void;
  private scheduled: NodeJS.Immediate | undefined;

  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly service: ObjectService,
    private readonly peers: Peers,
  ) {
    this.unsubscribe = store.onChange((ev) => {
      if (ev.resource === CLUSTER_ROLES) this.schedule();
    });
    this.schedule();
  }

  dispose(): void {
    this.unsubscribe();
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
  }

  private schedule(): void {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.reconcile();
    });
  }

  private reconcile(): void {
    const roles = this.store.list(CLUSTER_ROLES);
    for (const role of roles) {
      if (!isObject(role.aggregationRule)) continue;
      const rules = this.aggregate(role, roles);
      if (rules === undefined) continue;
      const current = Array.isArray(role.rules) ? role.rules : [];
      if (rules.map(normalised).join('\n') === current.map(normalised).join('\n')) continue;
      const { rt, version } = this.registry.resolve('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
      try {
        this.service.update(rt, version, '', str(metaOf(role).name), { ...role, rules }, CONTEXT);
      } catch {
        // changed or deleted meanwhile: that change schedules another pass
      }
    }
  }

  /** The rules the aggregation gives `role`; undefined when a selector is invalid (kube retries it). */
  private aggregate(role: JsonObject, roles: readonly JsonObject[]): unknown[] | undefined {
    const name = str(metaOf(role).name);
    const selectors = (role.aggregationRule as JsonObject).clusterRoleSelectors;
    const rules: unknown[] = [];
    const seen = new Set<string>();
    for (const s of Array.isArray(selectors) ? selectors : []) {
      let selector;
      try {
        selector = this.peers.selectors.labelSelectorFromObject(isObject(s) ? s : {});
      } catch {
        return undefined;
      }
      const selected = roles
        .filter((r) => {
          const labels = metaOf(r).labels;
          return this.peers.selectors.matchesLabels(
            selector,
            (isObject(labels) ? labels : {}) as Record<string, string>,
          );
        })
        .map((r) => [str(metaOf(r).name), r] as const)
        .filter(([n]) => n !== name)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [, r] of selected) {
        for (const rule of Array.isArray(r.rules) ? r.rules : []) {
          const key = normalised(rule);
          if (seen.has(key)) continue;
          seen.add(key);
          rules.push(rule);
        }
      }
    }
    return rules;
  }
}
