// Review S11: SubjectAccessReview and LocalSubjectAccessReview, which an operator calls to ask
// whether another subject (the user who created a custom resource, the service account it names)
// may do something, answered as kube-apiserver answers them: the subject's groups are taken as
// the review gives them, and the spec is validated with kube's messages.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, created } from '../../__tests__/http-helper.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const SAR = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const LSAR = (ns: string) => `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`;
const subject = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

interface Review {
  status?: { allowed: boolean; reason?: string };
  details?: { causes?: { field: string; message: string }[] };
  message?: string;
}

describe('review S11: subject access reviews', () => {
  let server: KubeApiServer;
  const DORA = 'dora-token';

  beforeAll(async () => {
    server = await KubeApiServer.start({ rbac: true, users: [{ name: 'dora', token: DORA }] });
    await created(server, `${RBAC}/clusterroles`, {
      metadata: { name: 's11-pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    });
    await created(server, `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 's11-alice-reads-pods' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 's11-pod-reader' },
      subjects: [subject('User', 'alice'), subject('Group', 'readers')],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  const review = (user: Record<string, unknown>, attrs: Record<string, unknown>) => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { ...user, resourceAttributes: attrs },
  });

  it('[FINDING S11-RB4] a SubjectAccessReview answers for the user and groups it names', async () => {
    const listPods = { verb: 'list', resource: 'pods', namespace: 'default' };
    const alice = await call(server, 'POST', SAR, review({ user: 'alice' }, listPods));
    expect(alice.status).toBe(201);
    expect(alice.json<Review>()).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice', resourceAttributes: listPods },
      status: { allowed: true },
    });
    expect(alice.json<Review>().status?.reason).toContain('s11-alice-reads-pods');
    const bob = await call(server, 'POST', SAR, review({ user: 'bob' }, listPods));
    expect(bob.json<Review>().status).toEqual({ allowed: false });
    // groups as the review names them: nothing is added (no system:authenticated)
    const byGroup = await call(server, 'POST', SAR, review({ groups: ['readers'] }, listPods));
    expect(byGroup.json<Review>().status?.allowed).toBe(true);
    const elsewhere = await call(
      server,
      'POST',
      SAR,
      review({ user: 'alice' }, { ...listPods, namespace: 'kube-system' }),
    );
    expect(elsewhere.json<Review>().status?.allowed).toBe(false);
  });

  it('[FINDING S11-RB4] a SubjectAccessReview without a user or group is a 422 naming spec.user', async () => {
    const res = await call(server, 'POST', SAR, review({}, { verb: 'list', resource: 'pods' }));
    expect(res.status).toBe(422);
    expect(res.json<Review>().details?.causes).toEqual([
      expect.objectContaining({
        field: 'spec.user',
        message: 'Invalid value: "": at least one of user or group must be specified',
      }),
    ]);
  });

  it('[FINDING S11-RB4] a LocalSubjectAccessReview answers in its namespace, refuses another namespace and non-resource attributes', async () => {
    const local = (attrs: Record<string, unknown>) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      spec: { user: 'alice', ...attrs },
    });
    const ok = await call(
      server,
      'POST',
      LSAR('default'),
      local({ resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } }),
    );
    expect(ok.status).toBe(201);
    expect(ok.json<Review & { metadata: { namespace: string } }>()).toMatchObject({
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'default' },
      status: { allowed: true },
    });
    const other = await call(
      server,
      'POST',
      LSAR('default'),
      local({ resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'kube-system' } }),
    );
    expect(other.status).toBe(422);
    expect(other.json<Review>().details?.causes).toEqual([
      expect.objectContaining({
        field: 'spec.resourceAttributes.namespace',
        message: 'Invalid value: "kube-system": must match metadata.namespace',
      }),
    ]);
    const nonResource = await call(
      server,
      'POST',
      LSAR('default'),
      local({ nonResourceAttributes: { verb: 'get', path: '/healthz' } }),
    );
    expect(nonResource.status).toBe(422);
    expect(nonResource.json<Review>().details?.causes?.map((c) => c.field)).toContain(
      'spec.nonResourceAttributes',
    );
  });

  it('creating a SubjectAccessReview needs create on subjectaccessreviews (403 otherwise; held before S11-RB4 too)', async () => {
    const res = await call(
      server,
      'POST',
      SAR,
      review({ user: 'alice' }, { verb: 'list', resource: 'pods' }),
      {
        token: DORA,
      },
    );
    expect(res.status).toBe(403);
    expect(res.json<Review>().message).toBe(
      'subjectaccessreviews.authorization.k8s.io is forbidden: User "dora" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope',
    );
  });
});
