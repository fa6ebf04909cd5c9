import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, rawWatch, waitFor } from '../../__tests__/http-helper.js';

/**
 * Adversarial review (session 11) of deletion and garbage collection against kube-apiserver's
 * generic registry store (registry/generic/registry/store.go, registry/rest/delete.go,
 * endpoints/handlers/delete.go) and kube-controller-manager's garbage collector
 * (pkg/controller/garbagecollector/garbagecollector.go). Sources are named per test.
 */
const NS = '/api/v1/namespaces/default';
const CM = `${NS}/configmaps`;
const CR = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const MERGE = { contentType: 'application/merge-patch+json' };

interface Meta {
  name: string;
  uid: string;
  resourceVersion: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: Record<string, unknown>[];
}

async function make(server: KubeApiServer, path: string, body: Record<string, unknown>): Promise<Meta> {
  const r = await call(server, 'POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: expected 201, got ${r.status}: ${r.text}`);
  return r.json<{ metadata: Meta }>().metadata;
}

function ref(kind: string, m: { name: string; uid: string }, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind, name: m.name, uid: m.uid, ...extra };
}

async function gone(server: KubeApiServer, path: string): Promise<boolean> {
  return (await call(server, 'GET', path)).status === 404;
}

describe('review s11: deletion and garbage collection', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  // kube-controller-manager: garbagecollector.go isDangling returns namespacedOwnerOfClusterScopedObjectErr
  // for a cluster-scoped item whose reference names a namespaced kind (resolved by the REST mapping, not by
  // looking the owner up), classifyReferences passes it on, and processAttemptToDeleteWorker forgets the item:
  // it is never collected (graph_builder.go records an OwnerRefInvalidNamespace warning instead).
  it('[FINDING S11-GC1] a cluster-scoped object whose ownerReference names a namespaced owner is garbage collected, where kube leaves it (and the operator leaks it on a real cluster)', async () => {
    const owner = await make(server, CM, { metadata: { name: 'gc1-owner' } });
    const role = await make(server, CR, {
      metadata: { name: 'gc1-role', ownerReferences: [ref('ConfigMap', owner)] },
    });
    // an owner that never existed, named by a cluster-scoped object too
    await make(server, CR, {
      metadata: {
        name: 'gc1-ghost',
        ownerReferences: [ref('ConfigMap', { name: 'gc1-never', uid: 'no-such-uid' })],
      },
    });
    // a namespaced dependent of the same owner: its removal shows the collector has run
    await make(server, CM, { metadata: { name: 'gc1-dep', ownerReferences: [ref('ConfigMap', owner)] } });
    const nsGhost = await make(server, CM, {
      metadata: {
        name: 'gc1-ns-ghost',
        ownerReferences: [ref('ConfigMap', { name: 'gc1-never', uid: 'no-such-uid' })],
      },
    });
    expect(nsGhost.name).toBe('gc1-ns-ghost');
    expect((await call(server, 'DELETE', `${CM}/gc1-owner`)).status).toBe(200);
    await waitFor(async () => (await gone(server, `${CM}/gc1-dep`)) && gone(server, `${CM}/gc1-ns-ghost`));
    const kept = await call(server, 'GET', `${CR}/gc1-role`);
    expect(kept.status).toBe(200);
    expect(kept.json<{ metadata: Meta }>().metadata.uid).toBe(role.uid);
    expect((await call(server, 'GET', `${CR}/gc1-ghost`)).status).toBe(200);
  });
  // kube-apiserver: store.go Delete → updateForGracefulDeletionAndFinalizers; rest.BeforeDelete reports no
  // pending graceful deletion for kinds without a graceful strategy (or with deletionGracePeriodSeconds 0),
  // so deletionFinalizersForGarbageCollection applies the new propagationPolicy to an object already being
  // deleted: a second DELETE with Orphan adds `orphan`, and the collector orphans the dependents.
  it('[FINDING S11-GC2] a second DELETE with propagationPolicy=Orphan on an owner already being deleted is ignored, so its dependents are deleted when its finalizer goes, where kube keeps them', async () => {
    const owner = await make(server, CM, {
      metadata: { name: 'gc2-owner', finalizers: ['example.com/hold'] },
    });
    await make(server, CM, {
      metadata: { name: 'gc2-dep', ownerReferences: [ref('ConfigMap', owner, { blockOwnerDeletion: true })] },
    });
    const first = await call(server, 'DELETE', `${CM}/gc2-owner`);
    expect(first.status).toBe(200);
    expect(first.json<{ metadata: Meta }>().metadata.deletionTimestamp).toBeDefined();
    const second = await call(server, 'DELETE', `${CM}/gc2-owner`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Orphan',
    });
    expect(second.status).toBe(200);
    expect(second.json<{ metadata: Meta }>().metadata.finalizers).toEqual(['example.com/hold', 'orphan']);
    // the collector strips the owner from the dependent, then drops `orphan`
    await waitFor(async () => {
      const dep = (await call(server, 'GET', `${CM}/gc2-dep`)).json<{ metadata: Meta }>();
      return dep.metadata.ownerReferences === undefined;
    });
    await waitFor(async () => {
      const o = (await call(server, 'GET', `${CM}/gc2-owner`)).json<{ metadata: Meta }>();
      return o.metadata.finalizers?.join() === 'example.com/hold';
    });
    // the operator lets go of the owner; the orphaned dependent stays
    expect(
      (await call(server, 'PATCH', `${CM}/gc2-owner`, { metadata: { finalizers: null } }, MERGE)).status,
    ).toBe(200);
    await waitFor(() => gone(server, `${CM}/gc2-owner`));
    expect((await call(server, 'GET', `${CM}/gc2-dep`)).status).toBe(200);
  });

  it('[FINDING S11-GC2] a second DELETE with propagationPolicy=Foreground on an owner held by a finalizer does not start the foreground deletion of its dependents', async () => {
    const owner = await make(server, CM, {
      metadata: { name: 'gc2f-owner', finalizers: ['example.com/hold'] },
    });
    await make(server, CM, {
      metadata: {
        name: 'gc2f-dep',
        ownerReferences: [ref('ConfigMap', owner, { blockOwnerDeletion: true })],
      },
    });
    expect((await call(server, 'DELETE', `${CM}/gc2f-owner`)).status).toBe(200);
    const second = await call(server, 'DELETE', `${CM}/gc2f-owner?propagationPolicy=Foreground`);
    expect(second.status).toBe(200);
    expect(second.json<{ metadata: Meta }>().metadata.finalizers).toEqual([
      'example.com/hold',
      'foregroundDeletion',
    ]);
    await waitFor(() => gone(server, `${CM}/gc2f-dep`));
    // the owner loses foregroundDeletion and waits for its own finalizer
    await waitFor(async () => {
      const o = (await call(server, 'GET', `${CM}/gc2f-owner`)).json<{ metadata: Meta }>();
      return o.metadata.finalizers?.join() === 'example.com/hold';
    });
  });

  // kube-apiserver: registry/rest/delete.go BeforeDelete checks DeleteOptions.preconditions first and answers
  // errors.NewConflict(GroupResource{Group, Resource: Kind}, name, "the UID in the precondition (%s) does not
  // match the UID in record (%s). The object might have been deleted and then recreated") (and the
  // ResourceVersion one, "... The object might have been modified").
  it('[FINDING S11-GC3] a DELETE whose preconditions fail answers 409 with the storage layer\'s "Precondition failed" text, not kube\'s BeforeDelete message that says what happened', async () => {
    const cm = await make(server, CM, { metadata: { name: 'gc3' } });
    const badUid = await call(server, 'DELETE', `${CM}/gc3`, { preconditions: { uid: 'other-uid' } });
    expect(badUid.status).toBe(409);
    const u = badUid.json<{ message: string; reason: string; details: Record<string, unknown> }>();
    expect(u.reason).toBe('Conflict');
    expect(u.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "gc3": the UID in the precondition (other-uid) does not match the UID in record (${cm.uid}). The object might have been deleted and then recreated`,
    );
    expect(u.details).toEqual({ name: 'gc3', group: '', kind: 'ConfigMap' });
    const badRv = await call(server, 'DELETE', `${CM}/gc3`, { preconditions: { resourceVersion: '1' } });
    expect(badRv.status).toBe(409);
    expect(badRv.json<{ message: string }>().message).toBe(
      `Operation cannot be fulfilled on ConfigMap "gc3": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${cm.resourceVersion}). The object might have been modified`,
    );
    const dep = await call(server, 'DELETE', '/apis/apps/v1/namespaces/default/deployments/none', {
      preconditions: { uid: 'x' },
    });
    expect(dep.status).toBe(404);
    // the namespace registry's Delete (pkg/registry/core/namespace/storage/storage.go) checks them itself,
    // in the storage layer's words and with the resource
    const ns = await make(server, '/api/v1/namespaces', { metadata: { name: 'gc3-ns' } });
    const nsUid = await call(server, 'DELETE', '/api/v1/namespaces/gc3-ns', { preconditions: { uid: 'x' } });
    expect(nsUid.status).toBe(409);
    expect(nsUid.json<{ message: string }>().message).toBe(
      `Operation cannot be fulfilled on namespaces "gc3-ns": Precondition failed: UID in precondition: x, UID in object meta: ${ns.uid}`,
    );
    const nsRv = await call(server, 'DELETE', '/api/v1/namespaces/gc3-ns', {
      preconditions: { resourceVersion: '1' },
    });
    expect(nsRv.json<{ message: string }>().message).toBe(
      `Operation cannot be fulfilled on namespaces "gc3-ns": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${ns.resourceVersion}`,
    );
  });

  // kube-apiserver: endpoints/handlers/delete.go DeleteResource answers 202 Accepted when the object was not
  // deleted at once and the request set orphanDependents=false; shouldOrphanDependents and
  // shouldDeleteDependentsInForeground (store.go) treat a set orphanDependents as overriding the object's
  // finalizers, so `false` also removes an `orphan` finalizer already there.
  it('[FINDING S11-GC4] DELETE with orphanDependents=false of an object held by a finalizer answers 200, where kube answers 202 Accepted, and it keeps an orphan finalizer the option overrides', async () => {
    await make(server, CM, { metadata: { name: 'gc4', finalizers: ['example.com/hold', 'orphan'] } });
    const r = await call(server, 'DELETE', `${CM}/gc4`, { orphanDependents: false });
    expect(r.status).toBe(202);
    const m = r.json<{ metadata: Meta }>().metadata;
    expect(m.deletionTimestamp).toBeDefined();
    expect(m.finalizers).toEqual(['example.com/hold']);
    // without the option, or once deleted at once, 200 as before
    await make(server, CM, { metadata: { name: 'gc4-now' } });
    expect((await call(server, 'DELETE', `${CM}/gc4-now?orphanDependents=false`)).status).toBe(200);
  });
  // kube-apiserver: pkg/registry/core/namespace/storage/storage.go, the namespace store's
  // ShouldDeleteDuringUpdate is ShouldDeleteNamespaceDuringUpdate: an update removes a namespace being
  // deleted only once spec.finalizers is empty too (the namespace controller empties it through /finalize
  // after the content is gone), not merely when metadata.finalizers is.
  it('[FINDING S11-GC5] any update of a terminating namespace (a label patch, a status write) deletes it at once, leaving its content behind in a namespace that no longer exists', async () => {
    await make(server, '/api/v1/namespaces', { metadata: { name: 'gc5' } });
    const held = '/api/v1/namespaces/gc5/configmaps';
    await make(server, held, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    expect((await call(server, 'DELETE', '/api/v1/namespaces/gc5')).status).toBe(200);
    const patched = await call(
      server,
      'PATCH',
      '/api/v1/namespaces/gc5',
      { metadata: { labels: { team: 'a' } } },
      MERGE,
    );
    expect(patched.status).toBe(200);
    const ns = await call(server, 'GET', '/api/v1/namespaces/gc5');
    expect(ns.status).toBe(200);
    const body = ns.json<{
      metadata: Meta & { labels: Record<string, string> };
      status: { phase: string };
    }>();
    expect(body.metadata.labels.team).toBe('a');
    expect(body.status.phase).toBe('Terminating');
    // the namespace goes once its content does
    expect(
      (await call(server, 'PATCH', `${held}/held`, { metadata: { finalizers: null } }, MERGE)).status,
    ).toBe(200);
    await waitFor(() => gone(server, '/api/v1/namespaces/gc5'));
  });
  // kube-controller-manager: pkg/controller/namespace/deletion/namespaced_resources_deleter.go deleteAllContent
  // records, after each pass, five conditions on the namespace (status_condition_utils.go updateConditions):
  // NamespaceContentRemaining / NamespaceFinalizersRemaining True with the counts of what is left, the others
  // False with their "successful" reasons. kube-apiserver: pkg/registry/core/namespace/storage/storage.go
  // REST.Delete sets deletionTimestamp and phase Terminating only (no deletionGracePeriodSeconds).
  it("[FINDING S11-GC6] a namespace held by an object's finalizer shows no status conditions saying what holds it, and carries a deletionGracePeriodSeconds kube never sets on namespaces", async () => {
    await make(server, '/api/v1/namespaces', { metadata: { name: 'gc6' } });
    const cms = '/api/v1/namespaces/gc6/configmaps';
    await make(server, cms, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await make(server, cms, { metadata: { name: 'plain' } });
    const del = await call(server, 'DELETE', '/api/v1/namespaces/gc6');
    expect(del.status).toBe(200);
    const marked = del.json<{ metadata: Record<string, unknown> }>().metadata;
    expect(marked.deletionTimestamp).toBeDefined();
    expect(marked.deletionGracePeriodSeconds).toBeUndefined();
    type Cond = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };
    const conditions = async (): Promise<Cond[] | undefined> =>
      (await call(server, 'GET', '/api/v1/namespaces/gc6')).json<{ status: { conditions?: Cond[] } }>().status
        .conditions;
    const held = await waitFor(async () => {
      const c = await conditions();
      return c?.length === 5 && c;
    });
    expect(held.map(({ type, status, reason, message }) => ({ type, status, reason, message }))).toEqual([
      {
        type: 'NamespaceDeletionDiscoveryFailure',
        status: 'False',
        reason: 'ResourcesDiscovered',
        message: 'All resources successfully discovered',
      },
      {
        type: 'NamespaceDeletionGroupVersionParsingFailure',
        status: 'False',
        reason: 'ParsedGroupVersions',
        message: 'All legacy kube types successfully parsed',
      },
      {
        type: 'NamespaceDeletionContentFailure',
        status: 'False',
        reason: 'ContentDeleted',
        message: 'All content successfully deleted, may be waiting on finalization',
      },
      {
        type: 'NamespaceContentRemaining',
        status: 'True',
        reason: 'SomeResourcesRemain',
        message: 'Some resources are remaining: configmaps. has 1 resource instances',
      },
      {
        type: 'NamespaceFinalizersRemaining',
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message:
          'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      },
    ]);
    expect(held.every((c) => typeof c.lastTransitionTime === 'string')).toBe(true);
    expect(await gone(server, `${cms}/plain`)).toBe(true);
    expect(
      (await call(server, 'PATCH', `${cms}/held`, { metadata: { finalizers: null } }, MERGE)).status,
    ).toBe(200);
    await waitFor(() => gone(server, '/api/v1/namespaces/gc6'));
  });
  // kube-controller-manager: graph_builder.go addDependentToOwners finds the owner's node by uid; when that
  // owner has been observed in another namespace (OwnerRefInvalidNamespace warning) or with other
  // coordinates (name, kind), the dependent goes to attemptToDelete at once, where isDangling looks the
  // owner up by name in the dependent's namespace, finds none (or another uid) and the dependent is deleted.
  it('[FINDING S11-GC7] a dependent whose ownerReference carries the uid of a live owner in another namespace (or under another name) is kept until that owner goes, where kube collects it at once', async () => {
    const owner = await make(server, CM, { metadata: { name: 'gc7-owner' } });
    await make(server, '/api/v1/namespaces', { metadata: { name: 'gc7' } });
    const other = '/api/v1/namespaces/gc7/configmaps';
    await make(server, other, { metadata: { name: 'cross', ownerReferences: [ref('ConfigMap', owner)] } });
    await make(server, CM, {
      metadata: {
        name: 'gc7-misnamed',
        ownerReferences: [ref('ConfigMap', { name: 'gc7-not-the-owner', uid: owner.uid })],
      },
    });
    await make(server, CM, {
      metadata: { name: 'gc7-miskinded', ownerReferences: [ref('Secret', owner)] },
    });
    await waitFor(
      async () =>
        (await gone(server, `${other}/cross`)) &&
        (await gone(server, `${CM}/gc7-misnamed`)) &&
        gone(server, `${CM}/gc7-miskinded`),
    );
    // a correct reference to the same owner is kept
    await make(server, CM, { metadata: { name: 'gc7-dep', ownerReferences: [ref('ConfigMap', owner)] } });
    expect((await call(server, 'GET', `${CM}/gc7-dep`)).status).toBe(200);
    expect((await call(server, 'GET', `${CM}/gc7-owner`)).status).toBe(200);
  });
  // kube-apiserver: pkg/registry/core/event/strategy.go DefaultGarbageCollectionPolicy returns
  // rest.Unsupported (events.k8s.io Events share that storage), so store.go's shouldOrphanDependents and
  // shouldDeleteDependentsInForeground both answer false: a DELETE never adds orphan or foregroundDeletion and
  // the Event goes at once. kube-controller-manager: graph_builder.go ignoredResources holds core and
  // events.k8s.io events, so the collector never watches them and never deletes an Event for its owners.
  it('[FINDING S11-GC8] an Event deleted with propagationPolicy Foreground or Orphan is kept terminating with a collector finalizer, and an Event whose owner goes is garbage collected, where kube does neither', async () => {
    const EV = `${NS}/events`;
    const event = (name: string, meta: Record<string, unknown> = {}) => ({
      metadata: { name, ...meta },
      involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
      reason: 'Tested',
      message: 'm',
      type: 'Normal',
    });
    await make(server, EV, event('gc8-fg'));
    const fg = await call(server, 'DELETE', `${EV}/gc8-fg?propagationPolicy=Foreground`);
    expect(fg.status).toBe(200);
    expect(fg.json<{ kind: string }>().kind).toBe('Status');
    expect(await gone(server, `${EV}/gc8-fg`)).toBe(true);
    await make(server, '/apis/events.k8s.io/v1/namespaces/default/events', {
      metadata: { name: 'gc8-orphan' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/c',
      reportingInstance: 'i',
      action: 'Test',
      reason: 'Tested',
      regarding: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
      type: 'Normal',
    });
    const orphan = await call(
      server,
      'DELETE',
      '/apis/events.k8s.io/v1/namespaces/default/events/gc8-orphan?propagationPolicy=Orphan',
    );
    expect(orphan.json<{ kind: string }>().kind).toBe('Status');
    // an Event owned by a ConfigMap outlives it; a ConfigMap owned alike is collected
    const owner = await make(server, CM, { metadata: { name: 'gc8-owner' } });
    await make(server, EV, event('gc8-owned', { ownerReferences: [ref('ConfigMap', owner)] }));
    await make(server, CM, { metadata: { name: 'gc8-dep', ownerReferences: [ref('ConfigMap', owner)] } });
    expect((await call(server, 'DELETE', `${CM}/gc8-owner`)).status).toBe(200);
    await waitFor(() => gone(server, `${CM}/gc8-dep`));
    expect((await call(server, 'GET', `${EV}/gc8-owned`)).status).toBe(200);
  });
  // kube-apiserver: pkg/registry/core/serviceaccount/storage/storage.go and
  // pkg/registry/core/persistentvolumeclaim/storage/storage.go set ReturnDeletedObject, so store.go
  // finalizeDelete answers the deleted object; kinds without it (ConfigMap) answer a Status.
  it('[FINDING S11-GC9] a DELETE of a ServiceAccount or a PersistentVolumeClaim answers a Status, where kube answers the deleted object', async () => {
    await make(server, `${NS}/serviceaccounts`, { metadata: { name: 'gc9' } });
    const sa = await call(server, 'DELETE', `${NS}/serviceaccounts/gc9`);
    expect(sa.status).toBe(200);
    expect(sa.json<{ kind: string; metadata: Meta }>()).toMatchObject({
      kind: 'ServiceAccount',
      metadata: { name: 'gc9' },
    });
    await make(server, `${NS}/persistentvolumeclaims`, {
      metadata: { name: 'gc9' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    const pvc = await call(server, 'DELETE', `${NS}/persistentvolumeclaims/gc9`);
    expect(pvc.json<{ kind: string }>().kind).toBe('PersistentVolumeClaim');
    await make(server, CM, { metadata: { name: 'gc9' } });
    expect((await call(server, 'DELETE', `${CM}/gc9`)).json<{ kind: string }>().kind).toBe('Status');
  });
  // kube-apiserver: registry/generic/registry/store.go Update hands an update that empties the finalizers of
  // an object being deleted to deleteWithoutFinalizers, which deletes the stored object (the emptied one
  // is never stored; the answer is the request's object); storage/etcd3/watcher.go prepareObjs sends a
  // DELETED event with the previous value, "the *old* object with the etcd revision for the time at which it
  // gets deleted": watchers see the finalizer still there.
  it('[FINDING S11-GC10] the DELETED watch event that follows the removal of the last finalizer carries the update (no finalizers), where kube sends the last stored object (finalizer still listed)', async () => {
    const cm = await make(server, CM, { metadata: { name: 'gc10', finalizers: ['example.com/hold'] } });
    const w = rawWatch(
      server,
      `${CM}?watch=true&resourceVersion=${cm.resourceVersion}&fieldSelector=metadata.name%3Dgc10`,
    );
    try {
      const del = await call(server, 'DELETE', `${CM}/gc10`);
      const deleting = del.json<{ metadata: Meta }>().metadata;
      const removed = await call(server, 'PATCH', `${CM}/gc10`, { metadata: { finalizers: null } }, MERGE);
      expect(removed.status).toBe(200);
      // the answer is the object as the request left it
      expect(removed.json<{ metadata: Meta }>().metadata.finalizers).toBeUndefined();
      const last = await waitFor(() => w.events.find((e) => e.type === 'DELETED'));
      const m = last.object.metadata as Meta;
      expect(m.finalizers).toEqual(['example.com/hold']);
      expect(m.deletionTimestamp).toBe(deleting.deletionTimestamp);
      expect(Number(m.resourceVersion)).toBeGreaterThan(Number(deleting.resourceVersion));
      expect(w.events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    } finally {
      w.close();
    }
  });
  // kube-apiserver: pkg/registry/core/namespace/storage/storage.go REST.Delete: shouldHaveOrphanFinalizer and
  // shouldHaveDeleteDependentsFinalizer keep the namespace's own orphan/foregroundDeletion finalizer when the
  // request names no policy, and orphanDependents=false asks for foregroundDeletion (not Background); a
  // namespace already terminating is answered as it is while spec.finalizers remain.
  it('[FINDING S11-GC11] a DELETE of a namespace without options drops the orphan finalizer it carries (its cluster-scoped dependents are then collected), and orphanDependents=false deletes it without foregroundDeletion', async () => {
    const ns = await make(server, '/api/v1/namespaces', {
      metadata: { name: 'gc11a', finalizers: ['orphan'] },
    });
    await make(server, CR, {
      metadata: {
        name: 'gc11-role',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'gc11a', uid: ns.uid }],
      },
    });
    const del = await call(server, 'DELETE', '/api/v1/namespaces/gc11a');
    expect(del.json<{ metadata: Meta }>().metadata.finalizers).toEqual(['orphan']);
    await waitFor(() => gone(server, '/api/v1/namespaces/gc11a'));
    const role = await call(server, 'GET', `${CR}/gc11-role`);
    expect(role.status).toBe(200);
    expect(role.json<{ metadata: Meta }>().metadata.ownerReferences).toBeUndefined();
    // a second DELETE with a policy leaves a terminating namespace as it is
    const nsb = await make(server, '/api/v1/namespaces', { metadata: { name: 'gc11b' } });
    await make(server, '/api/v1/namespaces/gc11b/configmaps', {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    // a blocking dependent held by its finalizer keeps foregroundDeletion on the namespace
    await make(server, CR, {
      metadata: {
        name: 'gc11-blocker',
        finalizers: ['example.com/hold'],
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Namespace', name: 'gc11b', uid: nsb.uid, blockOwnerDeletion: true },
        ],
      },
    });
    const fg = await call(server, 'DELETE', '/api/v1/namespaces/gc11b', { orphanDependents: false });
    expect(fg.status).toBe(202);
    expect(fg.json<{ metadata: Meta }>().metadata.finalizers).toEqual(['foregroundDeletion']);
    const again = await call(server, 'DELETE', '/api/v1/namespaces/gc11b?propagationPolicy=Background');
    expect(again.status).toBe(200);
    expect(again.json<{ metadata: Meta }>().metadata.finalizers).toEqual(['foregroundDeletion']);
    for (const held of ['/api/v1/namespaces/gc11b/configmaps/held', `${CR}/gc11-blocker`])
      expect((await call(server, 'PATCH', held, { metadata: { finalizers: null } }, MERGE)).status).toBe(200);
    await waitFor(() => gone(server, '/api/v1/namespaces/gc11b'));
    expect(await gone(server, `${CR}/gc11-blocker`)).toBe(true);
  });
  // kube-controller-manager: graph_builder.go addDependentToOwners calls reportInvalidNamespaceOwnerRef when a
  // dependent names (by uid) an observed namespaced owner of another namespace: a Warning event
  // OwnerRefInvalidNamespace on the dependent from garbage-collector-controller, "ownerRef <objectReference>
  // does not exist in namespace <ns>" (graph.go objectReference.String; client-go's recorder puts the event in
  // the dependent's namespace, "default" for a cluster-scoped one).
  it('[FINDING S11-GC12] a dependent whose ownerReference names an owner of another namespace gets no OwnerRefInvalidNamespace warning event saying why it is collected (or, cluster-scoped, never collected)', async () => {
    const owner = await make(server, CM, { metadata: { name: 'gc12-owner' } });
    await make(server, '/api/v1/namespaces', { metadata: { name: 'gc12' } });
    const child = await make(server, '/api/v1/namespaces/gc12/configmaps', {
      metadata: { name: 'gc12-child', ownerReferences: [ref('ConfigMap', owner)] },
    });
    const role = await make(server, CR, {
      metadata: { name: 'gc12-role', ownerReferences: [ref('ConfigMap', owner)] },
    });
    type Ev = {
      type: string;
      reason: string;
      message: string;
      count: number;
      source: { component: string };
      involvedObject: Record<string, unknown>;
    };
    const warning = (ns: string, name: string) =>
      waitFor(async () => {
        const r = await call(
          server,
          'GET',
          `/api/v1/namespaces/${ns}/events?fieldSelector=reason%3DOwnerRefInvalidNamespace,involvedObject.name%3D${name}`,
        );
        return r.json<{ items: Ev[] }>().items[0];
      });
    const ref0 = `[v1/ConfigMap, namespace: %s, name: gc12-owner, uid: ${owner.uid}]`;
    const e = await warning('gc12', 'gc12-child');
    expect(e).toMatchObject({
      type: 'Warning',
      reason: 'OwnerRefInvalidNamespace',
      count: 1,
      source: { component: 'garbage-collector-controller' },
      message: `ownerRef ${ref0.replace('%s', 'gc12')} does not exist in namespace "gc12"`,
      involvedObject: {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        namespace: 'gc12',
        name: 'gc12-child',
        uid: child.uid,
      },
    });
    const c = await warning('default', 'gc12-role');
    expect(c.message).toBe(`ownerRef ${ref0.replace('%s', '')} does not exist in namespace ""`);
    expect(c.involvedObject).toEqual({
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      name: 'gc12-role',
      uid: role.uid,
    });
  });
  // kube-apiextensions-apiserver: pkg/controller/finalizer/crd_finalizer.go sync sets the CRD's Terminating
  // condition True (InstanceDeletionInProgress, "CustomResource deletion is in progress") before deleting the
  // instances, and, once none is left, False (InstanceDeletionCompleted, "removed all instances") in the same
  // status update that removes the customresourcecleanup finalizer.
  it('[FINDING S11-GC13] a CRD whose deletion waits on a custom resource held by a finalizer shows no Terminating condition', async () => {
    const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.gc13.example.com' },
      spec: {
        group: 'gc13.example.com',
        scope: 'Namespaced',
        names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    await make(server, CRDS, crd);
    const G = '/apis/gc13.example.com/v1/namespaces/default/gadgets';
    await waitFor(async () => (await call(server, 'GET', G)).status === 200);
    await make(server, G, {
      apiVersion: 'gc13.example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    expect((await call(server, 'DELETE', `${CRDS}/${crd.metadata.name}`)).status).toBe(200);
    type Cond = { type: string; status: string; reason: string; message: string };
    const terminating = await waitFor(async () => {
      const got = (await call(server, 'GET', `${CRDS}/${crd.metadata.name}`)).json<{
        status: { conditions: Cond[] };
      }>();
      // the DELETE itself sets InstanceDeletionPending (S11-GC14); the finalizer moves it on
      return got.status.conditions.find(
        (c) => c.type === 'Terminating' && c.reason !== 'InstanceDeletionPending',
      );
    });
    expect(terminating).toMatchObject({
      status: 'True',
      reason: 'InstanceDeletionInProgress',
      message: 'CustomResource deletion is in progress',
    });
    expect((await call(server, 'PATCH', `${G}/held`, { metadata: { finalizers: null } }, MERGE)).status).toBe(
      200,
    );
    await waitFor(() => gone(server, `${CRDS}/${crd.metadata.name}`));
  });
  // kube-apiextensions-apiserver: pkg/registry/customresourcedefinition/etcd.go REST.Delete, on the first
  // DELETE, only sets deletionTimestamp, adds customresourcecleanup.apiextensions.k8s.io and sets Terminating
  // True (InstanceDeletionPending, "CustomResourceDefinition marked for deletion; CustomResource deletion will
  // begin soon") in one GuaranteedUpdate: no grace period, no generation bump, and no garbage collector
  // finalizer whatever the propagationPolicy (only a later DELETE reaches the generic store).
  it('[FINDING S11-GC14] the answer to a CRD DELETE carries deletionGracePeriodSeconds, a bumped generation and the foregroundDeletion a propagationPolicy asked for, but no Terminating condition', async () => {
    const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.gc14.example.com' },
      spec: {
        group: 'gc14.example.com',
        scope: 'Namespaced',
        names: { kind: 'Gizmo', plural: 'gizmos', singular: 'gizmo', listKind: 'GizmoList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    await make(server, CRDS, crd);
    const G = '/apis/gc14.example.com/v1/namespaces/default/gizmos';
    await waitFor(async () => (await call(server, 'GET', G)).status === 200);
    await make(server, G, {
      apiVersion: 'gc14.example.com/v1',
      kind: 'Gizmo',
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    const before = (await call(server, 'GET', `${CRDS}/${crd.metadata.name}`)).json<{
      metadata: { generation: number };
    }>();
    const del = await call(server, 'DELETE', `${CRDS}/${crd.metadata.name}?propagationPolicy=Foreground`);
    expect(del.status).toBe(200);
    const body = del.json<{
      metadata: Meta & { generation: number; deletionGracePeriodSeconds?: number };
      status: { conditions: { type: string; status: string; reason: string; message: string }[] };
    }>();
    expect(body.metadata.deletionTimestamp).toBeDefined();
    expect(body.metadata.deletionGracePeriodSeconds).toBeUndefined();
    expect(body.metadata.generation).toBe(before.metadata.generation);
    expect(body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(body.status.conditions.find((c) => c.type === 'Terminating')).toMatchObject({
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    expect((await call(server, 'PATCH', `${G}/held`, { metadata: { finalizers: null } }, MERGE)).status).toBe(
      200,
    );
    await waitFor(() => gone(server, `${CRDS}/${crd.metadata.name}`));
  });
});
