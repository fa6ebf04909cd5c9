/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, created, fetched } from './http-helper.js';

/**
 * Review (session 10) of the defaults kube-apiserver 1.32 (the version this server reports) fills in
 * for the built-in kinds operators create. Sources read: pkg/apis/core/v1/defaults.go and the
 * generated zz_generated.defaults.go of core/v1 and apps/v1 (which defaulters run where),
 * pkg/apis/apps/v1/defaults.go, pkg/apis/batch/v1/defaults.go, pkg/registry/batch/job/strategy.go
 * (generated selector), pkg/registry/core/service/storage/alloc.go (ipFamilyPolicy, ipFamilies,
 * node ports), pkg/api/v1/service/util.go (ExternallyAccessible), pkg/util/parsers (image tag).
 * An operator that compares its desired state with what a cluster stored must see here what it
 * sees there.
 */
const NS = '/api/v1/namespaces/default';
const APPS = '/apis/apps/v1/namespaces/default';
const BATCH = '/apis/batch/v1/namespaces/default';
const APPLY = 'application/apply-patch+yaml';
const DIGEST = `sha256:${'a'.repeat(64)}`;

function deployment(name: string, podSpec: Record<string, unknown>): Record<string, unknown> {
  return {
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec },
    },
  };
}

describe('review s10: defaults of built-in kinds', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  const create = (path: string, body: Record<string, unknown>): Promise<any> =>
    created<any>(server, path, body);
  const get = (path: string): Promise<any> => fetched<any>(server, path);

  it('[FINDING S10-DF1] probes and lifecycle httpGet handlers come back without kube\'s defaults (timeoutSeconds 1, periodSeconds 10, successThreshold 1, failureThreshold 3, httpGet path "/" and scheme HTTP, grpc service "")', async () => {
    const d = await create(
      `${APPS}/deployments`,
      deployment('df1', {
        containers: [
          {
            name: 'c',
            image: 'nginx:1.25',
            readinessProbe: { httpGet: { port: 8080 } },
            livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 20 },
            startupProbe: { grpc: { port: 9090 } },
            lifecycle: { preStop: { httpGet: { port: 8080, path: '/stop' } } },
          },
        ],
        // a probe on an init container needs restartPolicy Always (a sidecar), as kube requires (S14-PV1)
        initContainers: [
          {
            name: 'i',
            image: 'busybox:1',
            restartPolicy: 'Always',
            livenessProbe: { exec: { command: ['true'] } },
          },
        ],
      }),
    );
    const c = d.spec.template.spec.containers[0];
    const probe = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };
    expect(c.readinessProbe).toEqual({ httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, ...probe });
    expect(c.livenessProbe).toEqual({ tcpSocket: { port: 8080 }, ...probe, periodSeconds: 20 });
    expect(c.startupProbe).toEqual({ grpc: { port: 9090, service: '' }, ...probe });
    expect(c.lifecycle.preStop.httpGet).toEqual({ port: 8080, path: '/stop', scheme: 'HTTP' });
    expect(d.spec.template.spec.initContainers[0].livenessProbe).toEqual({
      exec: { command: ['true'] },
      ...probe,
    });
    // a Pod gets the same
    const pod = await create(`${NS}/pods`, {
      metadata: { name: 'df1' },
      spec: { containers: [{ name: 'c', image: 'nginx:1.25', readinessProbe: { httpGet: { port: 80 } } }] },
    });
    expect(pod.spec.containers[0].readinessProbe).toEqual({
      httpGet: { port: 80, path: '/', scheme: 'HTTP' },
      ...probe,
    });
  });

  it('[FINDING S10-DF2] volumes and env come back without kube\'s defaults (defaultMode 420 of configMap, secret, downwardAPI and projected volumes, expirationSeconds 3600, emptyDir {} for a volume without a source, hostPath type "", fieldRef apiVersion v1, an ephemeral claim\'s volumeMode)', async () => {
    const d = await create(
      `${APPS}/deployments`,
      deployment('df2', {
        containers: [
          {
            name: 'c',
            image: 'nginx:1.25',
            env: [
              { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'PLAIN', value: 'x' },
            ],
          },
        ],
        volumes: [
          { name: 'cm', configMap: { name: 'cm' } },
          { name: 'sec', secret: { secretName: 's', defaultMode: 256 } },
          {
            name: 'dapi',
            downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] },
          },
          {
            name: 'proj',
            projected: {
              sources: [
                { serviceAccountToken: { path: 't' } },
                { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } },
                { configMap: { name: 'cm' } },
              ],
            },
          },
          { name: 'scratch' },
          { name: 'host', hostPath: { path: '/var/x' } },
          {
            name: 'eph',
            ephemeral: {
              volumeClaimTemplate: {
                spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
              },
            },
          },
        ],
      }),
    );
    const spec = d.spec.template.spec;
    expect(spec.containers[0].env).toEqual([
      { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'PLAIN', value: 'x' },
    ]);
    const fieldRef = { apiVersion: 'v1', fieldPath: 'metadata.name' };
    expect(spec.volumes).toEqual([
      { name: 'cm', configMap: { name: 'cm', defaultMode: 420 } },
      { name: 'sec', secret: { secretName: 's', defaultMode: 256 } },
      { name: 'dapi', downwardAPI: { items: [{ path: 'n', fieldRef }], defaultMode: 420 } },
      {
        name: 'proj',
        projected: {
          sources: [
            { serviceAccountToken: { path: 't', expirationSeconds: 3600 } },
            { downwardAPI: { items: [{ path: 'n', fieldRef }] } },
            { configMap: { name: 'cm' } },
          ],
          defaultMode: 420,
        },
      },
      { name: 'scratch', emptyDir: {} },
      { name: 'host', hostPath: { path: '/var/x', type: '' } },
      {
        name: 'eph',
        ephemeral: {
          volumeClaimTemplate: {
            spec: {
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '1Gi' } },
              volumeMode: 'Filesystem',
            },
          },
        },
      },
    ]);
  });

  it("[FINDING S10-DF3] a StatefulSet's volumeClaimTemplates and a PersistentVolumeClaim come back without kube's defaults (volumeMode Filesystem, status.phase Pending)", async () => {
    const sts = await create(`${APPS}/statefulsets`, {
      metadata: { name: 'df3' },
      spec: {
        serviceName: 'df3',
        selector: { matchLabels: { app: 'df3' } },
        template: {
          metadata: { labels: { app: 'df3' } },
          spec: { containers: [{ name: 'c', image: 'mysql:8' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    });
    expect(sts.spec.volumeClaimTemplates).toHaveLength(1);
    expect(sts.spec.volumeClaimTemplates[0].spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
      volumeMode: 'Filesystem',
    });
    expect(sts.spec.volumeClaimTemplates[0].status).toEqual({ phase: 'Pending' });
    const pvc = await create(`${NS}/persistentvolumeclaims`, {
      metadata: { name: 'df3' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    expect(pvc.status).toEqual({ phase: 'Pending' });
    expect((await get(`${NS}/persistentvolumeclaims/df3`)).status).toEqual({ phase: 'Pending' });
  });

  it('[FINDING S10-DF4] a StatefulSet with updateStrategy type RollingUpdate and no rollingUpdate comes back with rollingUpdate {partition: 0}, which kube adds only when it defaults the type', async () => {
    const body = (name: string, updateStrategy: unknown): Record<string, unknown> => ({
      metadata: { name },
      spec: {
        serviceName: name,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'c', image: 'mysql:8' }] },
        },
        ...(updateStrategy === undefined ? {} : { updateStrategy }),
      },
    });
    const typed = await create(`${APPS}/statefulsets`, body('df4', { type: 'RollingUpdate' }));
    expect(typed.spec.updateStrategy).toEqual({ type: 'RollingUpdate' });
    const untyped = await create(`${APPS}/statefulsets`, body('df4b', undefined));
    expect(untyped.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    const withRu = await create(
      `${APPS}/statefulsets`,
      body('df4c', { type: 'RollingUpdate', rollingUpdate: {} }),
    );
    expect(withRu.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    // the same through server-side apply: the applier owns the type only
    const applied = await call(
      server,
      'PATCH',
      `${APPS}/statefulsets/df4d?fieldManager=op`,
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        ...body('df4d', { type: 'RollingUpdate' }),
      }),
      { contentType: APPLY },
    );
    expect(applied.status).toBe(201);
    expect(applied.json<any>().spec.updateStrategy).toEqual({ type: 'RollingUpdate' });
  });

  it("[FINDING S10-DF5] a Job's completions, podReplacementPolicy, backoffLimit and manualSelector are defaulted where kube leaves them or defaults them otherwise", async () => {
    const job = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
      metadata: { name },
      spec: {
        ...spec,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    });
    // a work-queue Job: parallelism without completions keeps completions unset
    const queue = await create(`${BATCH}/jobs`, job('df5a', { parallelism: 3 }));
    expect(queue.spec.completions).toBeUndefined();
    expect(queue.spec.parallelism).toBe(3);
    expect(queue.spec.manualSelector).toBe(false);
    // completions alone: parallelism 1
    const fixed = await create(`${BATCH}/jobs`, job('df5b', { completions: 4 }));
    expect(fixed.spec).toMatchObject({ completions: 4, parallelism: 1 });
    // a pod failure policy makes the replacement policy Failed
    const pfp = await create(
      `${BATCH}/jobs`,
      job('df5c', {
        podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] },
      }),
    );
    expect(pfp.spec.podReplacementPolicy).toBe('Failed');
    // a backoff limit per index makes the global one unlimited
    const perIndex = await create(
      `${BATCH}/jobs`,
      job('df5d', { completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: 1 }),
    );
    expect(perIndex.spec.backoffLimit).toBe(2147483647);
  });

  it("[FINDING S10-DF6] a Job comes back without kube's generated selector (batch.kubernetes.io/controller-uid), its template's job-name and controller-uid labels, and the Job's labels copied from its template", async () => {
    const j = await create(`${BATCH}/jobs`, {
      metadata: { name: 'df6' },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    });
    const uid = j.metadata.uid as string;
    const generated = {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'df6',
      'controller-uid': uid,
      'job-name': 'df6',
    };
    expect(j.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(j.spec.template.metadata.labels).toEqual(generated);
    expect(j.metadata.labels).toEqual(generated);
    expect(await get(`${BATCH}/jobs/df6`)).toEqual(j);
    // the creator does not own what the server generated
    const owned = JSON.stringify(j.metadata.managedFields);
    expect(owned).not.toContain('controller-uid');
    expect(owned).not.toContain('f:selector');
    // the Job's own labels, when it has some, stay; the template's user labels are kept
    const k = await create(`${BATCH}/jobs`, {
      metadata: { name: 'df6b', labels: { team: 'a' } },
      spec: {
        template: {
          metadata: { labels: { app: 'x' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] },
        },
      },
    });
    expect(k.metadata.labels).toEqual({ team: 'a' });
    expect(k.spec.template.metadata.labels).toMatchObject({ app: 'x', 'job-name': 'df6b' });
    expect(k.spec.selector.matchLabels).toEqual({ 'batch.kubernetes.io/controller-uid': k.metadata.uid });
    // manualSelector: true keeps the user's selector and template as sent
    const m = await create(`${BATCH}/jobs`, {
      metadata: { name: 'df6c' },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { app: 'm' } },
        template: {
          metadata: { labels: { app: 'm' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] },
        },
      },
    });
    expect(m.spec.selector).toEqual({ matchLabels: { app: 'm' } });
    expect(m.spec.template.metadata.labels).toEqual({ app: 'm' });
    expect(m.metadata.labels).toEqual({ app: 'm' });
  });

  it("[FINDING S10-DF7] a Service's sessionAffinityConfig, allocateLoadBalancerNodePorts, externalTrafficPolicy with externalIPs and an empty targetPort are not defaulted as kube does", async () => {
    const client = await create(`${NS}/services`, {
      metadata: { name: 'df7a' },
      spec: { selector: { app: 'a' }, sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: '' }] },
    });
    expect(client.spec.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } });
    expect(client.spec.ports[0].targetPort).toBe(80);
    const none = await create(`${NS}/services`, {
      metadata: { name: 'df7b' },
      spec: {
        selector: { app: 'a' },
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
        ports: [{ port: 80 }],
      },
    });
    expect(none.spec.sessionAffinity).toBe('None');
    expect(none.spec.sessionAffinityConfig).toBeUndefined();
    const lb = await create(`${NS}/services`, {
      metadata: { name: 'df7c' },
      spec: { type: 'LoadBalancer', selector: { app: 'a' }, ports: [{ port: 80 }] },
    });
    expect(lb.spec.allocateLoadBalancerNodePorts).toBe(true);
    expect(lb.spec.externalTrafficPolicy).toBe('Cluster');
    const ext = await create(`${NS}/services`, {
      metadata: { name: 'df7d' },
      spec: { selector: { app: 'a' }, externalIPs: ['192.0.2.10'], ports: [{ port: 80 }] },
    });
    expect(ext.spec.externalTrafficPolicy).toBe('Cluster');
    const plain = await create(`${NS}/services`, {
      metadata: { name: 'df7e' },
      spec: { selector: { app: 'a' }, ports: [{ port: 80 }] },
    });
    expect(plain.spec.externalTrafficPolicy).toBeUndefined();
    expect(plain.spec.allocateLoadBalancerNodePorts).toBeUndefined();
  });

  it('[FINDING S10-DF8] a headless Service without a selector comes back SingleStack [IPv4], where kube makes it RequireDualStack [IPv4, IPv6]', async () => {
    const headless = await create(`${NS}/services`, {
      metadata: { name: 'df8' },
      spec: { clusterIP: 'None', ports: [{ port: 3306 }] },
    });
    expect(headless.spec).toMatchObject({
      clusterIP: 'None',
      clusterIPs: ['None'],
      ipFamilyPolicy: 'RequireDualStack',
      ipFamilies: ['IPv4', 'IPv6'],
    });
    // an update that leaves the policy out keeps the stored one
    const put = await call(server, 'PUT', `${NS}/services/df8`, {
      ...headless,
      spec: { ...headless.spec, ipFamilyPolicy: undefined, ipFamilies: undefined },
    });
    expect(put.status).toBe(200);
    expect(put.json<any>().spec).toMatchObject({
      ipFamilyPolicy: 'RequireDualStack',
      ipFamilies: ['IPv4', 'IPv6'],
    });
    // with a selector it is single-stack
    const selected = await create(`${NS}/services`, {
      metadata: { name: 'df8b' },
      spec: { clusterIP: 'None', selector: { app: 'a' }, ports: [{ port: 3306 }] },
    });
    expect(selected.spec).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
  });

  it("[FINDING S10-DF9] a Pod's container requests are not defaulted from its limits, nor hostPort from containerPort on the host network", async () => {
    const pod = await create(`${NS}/pods`, {
      metadata: { name: 'df9' },
      spec: {
        hostNetwork: true,
        containers: [
          {
            name: 'c',
            image: 'nginx:1.25',
            ports: [{ containerPort: 8080 }],
            resources: { limits: { cpu: '500m', memory: '1024Mi' }, requests: { cpu: '100m' } },
          },
        ],
        initContainers: [{ name: 'i', image: 'busybox:1', resources: { limits: { cpu: '1' } } }],
      },
    });
    const c = pod.spec.containers[0];
    expect(c.resources).toEqual({
      limits: { cpu: '500m', memory: '1Gi' },
      requests: { cpu: '100m', memory: '1Gi' },
    });
    expect(c.ports).toEqual([{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
    expect(pod.spec.initContainers[0].resources).toEqual({ limits: { cpu: '1' }, requests: { cpu: '1' } });
    // not in a pod template (kube does this for Pods only)
    const d = await create(
      `${APPS}/deployments`,
      deployment('df9', {
        hostNetwork: true,
        containers: [
          {
            name: 'c',
            image: 'nginx:1.25',
            ports: [{ containerPort: 8080 }],
            resources: { limits: { cpu: '1' } },
          },
        ],
      }),
    );
    expect(d.spec.template.spec.containers[0].resources).toEqual({ limits: { cpu: '1' } });
    expect(d.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 8080, protocol: 'TCP' }]);
  });

  it('[FINDING S10-DF10] imagePullPolicy of a `:latest` image pinned by digest is IfNotPresent (kube: Always), and of an image that is no reference Always (kube: IfNotPresent)', async () => {
    const d = await create(
      `${APPS}/deployments`,
      deployment('df10', {
        containers: [
          { name: 'a', image: `nginx:latest@${DIGEST}` },
          { name: 'b', image: `nginx@${DIGEST}` },
          { name: 'c', image: 'Nginx' },
          { name: 'd', image: 'registry.example.com:5000/team/app' },
          { name: 'e', image: 'localhost:5000/app:latest' },
          { name: 'f', image: 'nginx:1.25' },
        ],
      }),
    );
    expect(d.spec.template.spec.containers.map((c: any) => c.imagePullPolicy)).toEqual([
      'Always',
      'IfNotPresent',
      'IfNotPresent',
      'Always',
      'Always',
      'IfNotPresent',
    ]);
  });

  it('[FINDING S10-DF11] a LoadBalancer Service with allocateLoadBalancerNodePorts: false is given node ports, which kube allocates only when asked for one', async () => {
    const lb = await create(`${NS}/services`, {
      metadata: { name: 'df11' },
      spec: {
        type: 'LoadBalancer',
        allocateLoadBalancerNodePorts: false,
        selector: { app: 'a' },
        ports: [
          { name: 'a', port: 80 },
          { name: 'b', port: 81, nodePort: 31081 },
        ],
      },
    });
    expect(lb.spec.ports[0].nodePort).toBeUndefined();
    expect(lb.spec.ports[1].nodePort).toBe(31081);
  });

  it('[FINDING S10-DF12] an Ingress path without pathType is stored (with no pathType), where kube answers 422 Required: pathType has no default in networking.k8s.io/v1', async () => {
    const ingress = (name: string, pathType?: string): Record<string, unknown> => ({
      metadata: { name },
      spec: {
        rules: [
          {
            host: 'a.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  ...(pathType === undefined ? {} : { pathType }),
                  backend: { service: { name: 's', port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    });
    const ING = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
    const r = await call(server, 'POST', ING, ingress('df12'));
    expect(r.status).toBe(422);
    const s = r.json<any>();
    expect(s.details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        field: 'spec.rules[0].http.paths[0].pathType',
        message: 'Required value: pathType must be specified',
      },
    ]);
    expect(s.message).toBe(
      'Ingress.networking.k8s.io "df12" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    );
    const bad = await call(server, 'POST', ING, ingress('df12b', 'Regex'));
    expect(bad.status).toBe(422);
    expect(bad.json<any>().details.causes).toEqual([
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.rules[0].http.paths[0].pathType',
        message: 'Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
      },
    ]);
    const ok = await create(ING, ingress('df12c', 'Prefix'));
    expect(ok.spec.rules[0].http.paths[0].pathType).toBe('Prefix');
    // an update may not drop it either
    const put = await call(server, 'PUT', `${ING}/df12c`, { ...ok, spec: ingress('df12c').spec });
    expect(put.status).toBe(422);
  });

  it("[FINDING S10-DF13] an Endpoints object's ports come back without protocol TCP (SetDefaults_Endpoints)", async () => {
    const ep = await create(`${NS}/endpoints`, {
      metadata: { name: 'df13' },
      subsets: [
        {
          addresses: [{ ip: '10.0.0.1' }],
          // several ports are named (validateEndpointPort, S13-BV12)
          ports: [
            { name: 'http', port: 80 },
            { name: 'dns', port: 53, protocol: 'UDP' },
          ],
        },
      ],
    });
    expect(ep.subsets[0].ports).toEqual([
      { name: 'http', port: 80, protocol: 'TCP' },
      { name: 'dns', port: 53, protocol: 'UDP' },
    ]);
  });

  it("[FINDING S10-DF14] a RoleBinding's or ClusterRoleBinding's User and Group subjects and roleRef come back without apiGroup rbac.authorization.k8s.io (SetDefaults_Subject, SetDefaults_RoleBinding)", async () => {
    const RBAC = '/apis/rbac.authorization.k8s.io/v1';
    const subjects = [
      { kind: 'User', name: 'u' },
      { kind: 'Group', name: 'g' },
      { kind: 'ServiceAccount', name: 'sa', namespace: 'default' },
    ];
    const want = [
      { kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'Group', name: 'g', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'sa', namespace: 'default' },
    ];
    const rb = await create(`${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'df14' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects,
    });
    expect(rb.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'view',
    });
    expect(rb.subjects).toEqual(want);
    const crb = await create(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'df14' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects,
    });
    expect(crb.roleRef.apiGroup).toBe('rbac.authorization.k8s.io');
    expect(crb.subjects).toEqual(want);
  });

  it("[FINDING S10-DF15] a Job's podFailurePolicy onPodConditions pattern without status comes back without kube's status True", async () => {
    const j = await create(`${BATCH}/jobs`, {
      metadata: { name: 'df15' },
      spec: {
        podFailurePolicy: {
          rules: [
            {
              action: 'Ignore',
              onPodConditions: [{ type: 'DisruptionTarget' }, { type: 'X', status: 'False' }],
            },
          ],
        },
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    });
    expect(j.spec.podFailurePolicy.rules[0].onPodConditions).toEqual([
      { type: 'DisruptionTarget', status: 'True' },
      { type: 'X', status: 'False' },
    ]);
  });

  it('server-side apply: the new defaults and the generated Job selector are owned by no applier, and a re-apply writes nothing', async () => {
    const apply = (path: string, body: unknown): Promise<any> =>
      call(server, 'PATCH', `${path}?fieldManager=op`, JSON.stringify(body), { contentType: APPLY }).then(
        (r) => {
          expect([200, 201]).toContain(r.status);
          return r.json<any>();
        },
      );
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      ...deployment('ssa', {
        containers: [
          {
            name: 'c',
            image: 'nginx:1.25',
            readinessProbe: { httpGet: { port: 80 } },
            env: [{ name: 'P', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          },
        ],
        volumes: [{ name: 'v', configMap: { name: 'x' } }, { name: 'e' }],
      }),
    };
    const first = await apply(`${APPS}/deployments/ssa`, dep);
    const again = await apply(`${APPS}/deployments/ssa`, dep);
    expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(again.spec.template.spec.volumes[1]).toEqual({ name: 'e', emptyDir: {} });
    const owned = JSON.stringify(again.metadata.managedFields);
    for (const f of ['f:periodSeconds', 'f:scheme', 'f:path', 'f:apiVersion', 'f:defaultMode', 'f:emptyDir'])
      expect(owned).not.toContain(f);
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'ssa' },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    };
    const j1 = await apply(`${BATCH}/jobs/ssa`, job);
    const j2 = await apply(`${BATCH}/jobs/ssa`, job);
    expect(j2.metadata.resourceVersion).toBe(j1.metadata.resourceVersion);
    expect(j2.spec.selector.matchLabels['batch.kubernetes.io/controller-uid']).toBe(j1.metadata.uid);
    const jobOwned = JSON.stringify(j2.metadata.managedFields);
    expect(jobOwned).not.toContain('f:selector');
    expect(jobOwned).not.toContain('f:labels');
  });
});
