import type { JsonObject } from '../../types.js';

/**
 * The RBAC policy kube-apiserver creates at start (its `bootstrappolicy` package), reduced to the
 * roles users and tools rely on: `cluster-admin` (bound to `system:masters`), the aggregated
 * user-facing roles `admin`, `edit` and `view` with their `system:aggregate-to-*` parts,
 * `system:basic-user` (self access and rules reviews), `system:discovery`, `system:auth-delegator`
 * (TokenReview and SubjectAccessReview, unbound),
 * `system:service-account-issuer-discovery` (bound to `system:serviceaccounts`) and
 * `system:public-info-viewer`, bound as on a cluster.
 */

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const AGGREGATE = 'rbac.authorization.k8s.io/aggregate-to-';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

const VIEW_RULES: Rule[] = [
  {
    apiGroups: [''],
    resources: [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/status',
      'bindings',
      'events',
      'limitranges',
      'pods/log',
      'pods/status',
      'replicationcontrollers/status',
      'resourcequotas',
      'resourcequotas/status',
    ],
    verbs: READ,
  },
  { apiGroups: [''], resources: ['namespaces', 'namespaces/status'], verbs: READ },
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: READ },
  {
    apiGroups: ['apps'],
    resources: [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ],
    verbs: READ,
  },
  {
    apiGroups: ['autoscaling'],
    resources: ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'],
    verbs: READ,
  },
  { apiGroups: ['batch'], resources: ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], verbs: READ },
  {
    apiGroups: ['policy'],
    resources: ['poddisruptionbudgets', 'poddisruptionbudgets/status'],
    verbs: READ,
  },
  {
    apiGroups: ['networking.k8s.io'],
    resources: ['ingresses', 'ingresses/status', 'networkpolicies'],
    verbs: READ,
  },
];

const EDIT_RULES: Rule[] = [
  {
    apiGroups: [''],
    resources: ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'],
    verbs: READ,
  },
  { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
  {
    apiGroups: [''],
    resources: ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'],
    verbs: WRITE,
  },
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  {
    apiGroups: [''],
    resources: [
      'configmaps',
      'events',
      'persistentvolumeclaims',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'secrets',
      'serviceaccounts',
      'services',
      'services/proxy',
    ],
    verbs: WRITE,
  },
  { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
  {
    apiGroups: ['apps'],
    resources: [
      'daemonsets',
      'deployments',
      'deployments/rollback',
      'deployments/scale',
      'replicasets',
      'replicasets/scale',
      'statefulsets',
      'statefulsets/scale',
    ],
    verbs: WRITE,
  },
  { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: WRITE },
  { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: WRITE },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: WRITE },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: WRITE },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: [...READ, ...WRITE] },
];

const ADMIN_RULES: Rule[] = [
  { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['rolebindings', 'roles'],
    verbs: [...READ, ...WRITE],
  },
];

function meta(name: string, labels: Record<string, string> = {}): JsonObject {
  return {
    name,
    labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels },
    annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
  };
}

function clusterRole(name: string, rules: Rule[], labels?: Record<string, string>): JsonObject {
  return { metadata: meta(name, labels), rules: rules };
}

/** An aggregated role; `rules` are what the aggregation controller writes from its parts. */
function aggregated(name: string, part: string, rules: Rule[], labels?: Record<string, string>): JsonObject {
  return {
    ...clusterRole(name, rules, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`${AGGREGATE}${part}`]: 'true' } }] },
  };
}

/** The rules without repeats (the first of equal rules kept). */
function unique(rules: Rule[]): Rule[] {
  const seen = new Set<string>();
  return rules.filter((r) => {
    const key = JSON.stringify(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function binding(name: string, role: string, groups: string[]): JsonObject {
  return {
    metadata: meta(name),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
  };
}

/** The bootstrap ClusterRoles and ClusterRoleBindings, in creation order. */
export function bootstrapPolicy(): { clusterRoles: JsonObject[]; clusterRoleBindings: JsonObject[] } {
  const authenticated = ['system:authenticated'];
  return {
    clusterRoles: [
      clusterRole('cluster-admin', [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ]),
      clusterRole('system:aggregate-to-view', VIEW_RULES, { [`${AGGREGATE}view`]: 'true' }),
      clusterRole('system:aggregate-to-edit', EDIT_RULES, { [`${AGGREGATE}edit`]: 'true' }),
      clusterRole('system:aggregate-to-admin', ADMIN_RULES, { [`${AGGREGATE}admin`]: 'true' }),
      aggregated('view', 'view', VIEW_RULES, { [`${AGGREGATE}edit`]: 'true' }),
      aggregated('edit', 'edit', [...EDIT_RULES, ...VIEW_RULES], { [`${AGGREGATE}admin`]: 'true' }),
      // what the aggregation controller writes: edit's rules (it carries aggregate-to-admin), then the
      // admin part's, as the selected roles sort by name; a rule is kept once
      aggregated('admin', 'admin', unique([...EDIT_RULES, ...VIEW_RULES, ...ADMIN_RULES])),
      clusterRole('system:basic-user', [
        {
          apiGroups: ['authorization.k8s.io'],
          resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
          verbs: ['create'],
        },
        { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
      ]),
      clusterRole('system:discovery', [
        {
          nonResourceURLs: [
            '/api',
            '/api/*',
            '/apis',
            '/apis/*',
            '/healthz',
            '/livez',
            '/openapi',
            '/openapi/*',
            '/readyz',
            '/version',
            '/version/',
          ],
          verbs: ['get'],
        },
      ]),
      // for servers that delegate authentication and authorization to the API server (kube-rbac-proxy)
      clusterRole('system:auth-delegator', [
        { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
        { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      ]),
      clusterRole('system:service-account-issuer-discovery', [
        {
          nonResourceURLs: [
            '/.well-known/openid-configuration',
            '/.well-known/openid-configuration/',
            '/openid/v1/jwks',
            '/openid/v1/jwks/',
          ],
          verbs: ['get'],
        },
      ]),
      clusterRole('system:public-info-viewer', [
        { nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] },
      ]),
    ],
    clusterRoleBindings: [
      binding('cluster-admin', 'cluster-admin', ['system:masters']),
      binding('system:basic-user', 'system:basic-user', authenticated),
      binding('system:discovery', 'system:discovery', authenticated),
      binding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [
        'system:serviceaccounts',
      ]),
      binding('system:public-info-viewer', 'system:public-info-viewer', [
        'system:authenticated',
        'system:unauthenticated',
      ]),
    ],
  };
}
