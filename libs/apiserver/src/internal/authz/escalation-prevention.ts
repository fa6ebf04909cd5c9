import type { JsonObject } from '../../types.js';
import { ApiError } from '../common/errors.js';
import type { Peers } from '../common/peers.js';
import type { ObjectService, WriteContext } from '../storage/object-service.js';
import type { Store } from '../storage/store.js';
import type { ResourceType } from '../resources/resource-type.js';
import { rbacObjects } from './access-review.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_KINDS = new Set(['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']);

/**
 * The object service with RBAC's privilege-escalation prevention on writes of Roles, ClusterRoles
 * and their bindings, as kube-apiserver's RBAC storage applies it (`policybased` storages): a create,
 * update or patch that grants permissions the writer does not hold is refused with 403 unless the
 * writer may `escalate` the role or `bind` the referenced role. The check runs at the admission point
 * of the write, with the object about to be stored and the stored one, so dry runs are checked too.
 */
export function withEscalationPrevention(real: ObjectService, store: Store, peers: Peers): ObjectService {
  const service = Object.create(real) as ObjectService;
  const guarded = <C extends WriteContext>(rt: ResourceType, ctx: C, requestName?: string): C => {
    if (rt.group !== RBAC_GROUP || !RBAC_KINDS.has(rt.plural)) return ctx;
    const next = ctx.admission;
    return {
      ...ctx,
      admission: (obj: JsonObject, old: JsonObject | undefined) => {
        const req = { user: ctx.user.name, groups: ctx.user.groups, object: obj } as Parameters<
          Peers['rbac']['checkEscalation']
        >[0];
        if (old !== undefined) req.old = old;
        if (requestName !== undefined) req.requestName = requestName;
        const d = peers.rbac.checkEscalation(req, rbacObjects(store));
        if (!d.allowed) throw new ApiError(d.status, d.reason, d.message, d.details);
        if (next) next(obj, old);
      },
    };
  };
  service.create = (rt, v, ns, body, ctx, managed) => real.create(rt, v, ns, body, guarded(rt, ctx), managed);
  service.update = (rt, v, ns, name, body, ctx, sub) =>
    real.update(rt, v, ns, name, body, sub === undefined ? guarded(rt, ctx, name) : ctx, sub);
  service.patch = (rt, v, ns, name, type, patch, ctx, sub) =>
    real.patch(rt, v, ns, name, type, patch, sub === undefined ? guarded(rt, ctx, name) : ctx, sub);
  return service;
}
