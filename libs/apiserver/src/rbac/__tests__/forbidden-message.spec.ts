import { describe, expect, it } from '@jest/globals';
import type { AuthorizationAttributes } from '../index.js';
import { forbiddenMessage } from '../index.js';

describe('forbiddenMessage: the 403 Status message of kube-apiserver', () => {
  const base = { groups: [], apiGroup: '' };
  const cases: Array<[attrs: AuthorizationAttributes, reason: string | undefined, message: string]> = [
    [
      { ...base, user: 'alice', verb: 'list', resource: 'configmaps', namespace: 'default' },
      undefined,
      'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"',
    ],
    [
      {
        ...base,
        user: 'op',
        verb: 'get',
        apiGroup: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'ns',
        name: 'x',
      },
      undefined,
      'leases.coordination.k8s.io "x" is forbidden: User "op" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "ns"',
    ],
    [
      { ...base, user: 'u', verb: 'list', resource: 'nodes' },
      undefined,
      'nodes is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster scope',
    ],
    [
      { ...base, user: 'u', verb: 'list', resource: 'configmaps', namespace: '' },
      undefined,
      'configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" at the cluster scope',
    ],
    [
      {
        ...base,
        user: 'op',
        verb: 'patch',
        apiGroup: 'example.com',
        resource: 'webpages',
        subresource: 'status',
        namespace: 'ns',
        name: 'w',
      },
      undefined,
      'webpages.example.com "w" is forbidden: User "op" cannot patch resource "webpages/status" in API group "example.com" in the namespace "ns"',
    ],
    [
      {
        ...base,
        user: 'system:serviceaccount:ns:sa',
        verb: 'create',
        apiGroup: 'apps',
        resource: 'deployments',
        namespace: 'ns',
      },
      undefined,
      'deployments.apps is forbidden: User "system:serviceaccount:ns:sa" cannot create resource "deployments" in API group "apps" in the namespace "ns"',
    ],
    [
      { ...base, user: 'u', verb: 'get', resource: '', nonResourceURL: '/metrics' },
      undefined,
      'forbidden: User "u" cannot get path "/metrics"',
    ],
    [
      { ...base, user: 'u', verb: 'get', resource: 'configmaps', namespace: 'default', name: 'c' },
      'RBAC: role.rbac.authorization.k8s.io "r" not found',
      'configmaps "c" is forbidden: User "u" cannot get resource "configmaps" in API group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io "r" not found',
    ],
    [
      { ...base, user: '<b>&co', verb: 'get', resource: 'pods', namespace: 'default' },
      undefined,
      'pods is forbidden: User "&lt;b&gt;&amp;co" cannot get resource "pods" in API group "" in the namespace "default"',
    ],
  ];
  it.each(cases)('%j', (attrs, reason, message) => {
    expect(forbiddenMessage(attrs, reason)).toBe(message);
  });
});
