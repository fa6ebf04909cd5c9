/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, created, fetched } from './http-helper.js';

/**
 * Review (session 10) of the immutable fields of built-in kinds. kube-apiserver's update
 * validation (pkg/apis/core/validation ValidateConfigMapUpdate, ValidateSecretUpdate,
 * ValidateServiceUpdate, ValidatePersistentVolumeClaimUpdate, ValidatePodUpdate; pkg/apis/apps
 * ValidateStatefulSetUpdate and the apps/v1 selector rule of Deployments, ReplicaSets and
 * DaemonSets; pkg/apis/batch ValidateJobSpecUpdate; pkg/apis/rbac ValidateRoleBindingUpdate)
 * refuses these changes with a 422 on every write path. An operator tested here must meet the same
 * answer it will meet on a cluster.
 */
const NS = '/api/v1/namespaces/default';
const APPS = '/apis/apps/v1/namespaces/default';
const BATCH = '/apis/batch/v1/namespaces/default';
const RBAC = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSONPATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';

function podSpec(image = 'nginx:1.25'): Record<string, unknown> {
  return { containers: [{ name: 'c', image }] };
}

function template(labels: Record<string, string>, image = 'nginx:1.25'): Record<string, unknown> {
  return { metadata: { labels }, spec: podSpec(image) };
}

describe('review s10: immutable fields of built-in kinds', () => {
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

  /** Expects a 422 Invalid Status with exactly these causes, and the stored object unchanged. */
  async function expectInvalid(
    r: { status: number; json: <T>() => T },
    path: string,
    before: any,
    kind: string,
    group: string,
    name: string,
    causes: { reason: string; field: string; message: string }[],
  ): Promise<void> {
    expect(r.status).toBe(422);
    const s = r.json<any>();
    const list = causes.map((c) => `${c.field}: ${c.message}`);
    const body = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
    expect(s).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${body}`,
      details: { name, group, kind, causes },
    });
    const after = await get(path);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after).toEqual(before);
  }

  // ---- ConfigMap ----

  it('[FINDING S10-IM1] a ConfigMap marked immutable: true takes no change of data or binaryData, and cannot be made mutable (422 Forbidden)', async () => {
    const path = `${NS}/configmaps/im1`;
    const cm = await create(`${NS}/configmaps`, {
      metadata: { name: 'im1' },
      immutable: true,
      data: { a: '1' },
      binaryData: { b: 'AQ==' },
    });
    const forbidden = (field: string) => ({
      reason: 'FieldValueForbidden',
      field,
      message: 'Forbidden: field is immutable when `immutable` is set',
    });
    // PUT
    await expectInvalid(
      await call(server, 'PUT', path, { ...cm, data: { a: '2' } }),
      path,
      cm,
      'ConfigMap',
      '',
      'im1',
      [forbidden('data')],
    );
    // merge patch, several fields at once
    await expectInvalid(
      await call(
        server,
        'PATCH',
        path,
        { immutable: false, binaryData: { b: 'Ag==' } },
        { contentType: MERGE },
      ),
      path,
      cm,
      'ConfigMap',
      '',
      'im1',
      [forbidden('immutable'), forbidden('binaryData')],
    );
    // JSON patch, dry run: the same answer
    await expectInvalid(
      await call(server, 'PATCH', `${path}?dryRun=All`, [{ op: 'add', path: '/data/c', value: '3' }], {
        contentType: JSONPATCH,
      }),
      path,
      cm,
      'ConfigMap',
      '',
      'im1',
      [forbidden('data')],
    );
    // server-side apply
    await expectInvalid(
      await call(
        server,
        'PATCH',
        `${path}?fieldManager=op&force=true`,
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'im1' }, data: { a: 'x' } }),
        { contentType: APPLY },
      ),
      path,
      cm,
      'ConfigMap',
      '',
      'im1',
      [forbidden('data')],
    );
  });

  it('[FINDING S10-IM1] an immutable ConfigMap still takes metadata changes, and a mutable one takes data changes and the immutable flag', async () => {
    const cm = await create(`${NS}/configmaps`, {
      metadata: { name: 'im1b' },
      immutable: true,
      data: { a: '1' },
    });
    const r = await call(
      server,
      'PATCH',
      `${NS}/configmaps/im1b`,
      { metadata: { labels: { x: 'y' } } },
      { contentType: MERGE },
    );
    expect(r.status).toBe(200);
    expect(r.json<any>().metadata.labels).toEqual({ x: 'y' });
    expect(r.json<any>().data).toEqual(cm.data);
    await create(`${NS}/configmaps`, { metadata: { name: 'im1c' }, data: { a: '1' } });
    const r2 = await call(
      server,
      'PATCH',
      `${NS}/configmaps/im1c`,
      { data: { a: '2' }, immutable: true },
      { contentType: MERGE },
    );
    expect(r2.status).toBe(200);
    expect(r2.json<any>()).toMatchObject({ data: { a: '2' }, immutable: true });
  });

  // ---- Secret ----

  it("[FINDING S10-IM2] a Secret's type cannot change (422 field is immutable), nor the data of an immutable Secret", async () => {
    const path = `${NS}/secrets/im2`;
    const secret = await create(`${NS}/secrets`, { metadata: { name: 'im2' }, data: { a: 'MQ==' } });
    expect(secret.type).toBe('Opaque');
    await expectInvalid(
      await call(server, 'PATCH', path, { type: 'example.com/other' }, { contentType: STRATEGIC }),
      path,
      secret,
      'Secret',
      '',
      'im2',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'type',
          message: 'Invalid value: "example.com/other": field is immutable',
        },
      ],
    );
    const path2 = `${NS}/secrets/im2b`;
    const frozen = await create(`${NS}/secrets`, {
      metadata: { name: 'im2b' },
      immutable: true,
      data: { a: 'MQ==' },
    });
    // stringData is folded into data before validation, as kube does
    await expectInvalid(
      await call(server, 'PUT', path2, { ...frozen, stringData: { a: 'changed' } }),
      path2,
      frozen,
      'Secret',
      '',
      'im2b',
      [
        {
          reason: 'FieldValueForbidden',
          field: 'data',
          message: 'Forbidden: field is immutable when `immutable` is set',
        },
      ],
    );
    // a metadata change is fine
    const ok = await call(
      server,
      'PATCH',
      path2,
      { metadata: { annotations: { a: 'b' } } },
      { contentType: MERGE },
    );
    expect(ok.status).toBe(200);
  });

  // ---- Deployment, ReplicaSet, DaemonSet: apps/v1 selector ----

  it("[FINDING S10-IM3] an apps/v1 Deployment's spec.selector cannot change (422 field is immutable) on PUT, patch and apply", async () => {
    const path = `${APPS}/deployments/im3`;
    const dep = await create(`${APPS}/deployments`, {
      metadata: { name: 'im3' },
      spec: { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a', v: '1' }) },
    });
    const cause = {
      reason: 'FieldValueInvalid',
      field: 'spec.selector',
      message: 'Invalid value: {"matchLabels":{"app":"a","v":"1"}}: field is immutable',
    };
    await expectInvalid(
      await call(server, 'PUT', path, {
        ...dep,
        spec: { ...dep.spec, selector: { matchLabels: { v: '1', app: 'a' } } },
      }),
      path,
      dep,
      'Deployment',
      'apps',
      'im3',
      [cause],
    );
    await expectInvalid(
      await call(
        server,
        'PATCH',
        path,
        { spec: { selector: { matchLabels: { v: '1' } } } },
        { contentType: STRATEGIC },
      ),
      path,
      dep,
      'Deployment',
      'apps',
      'im3',
      [cause],
    );
    await expectInvalid(
      await call(
        server,
        'PATCH',
        `${path}?fieldManager=op&force=true&dryRun=All`,
        JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'im3' },
          spec: {
            selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['a'] }] },
            template: template({ app: 'a' }),
          },
        }),
        { contentType: APPLY },
      ),
      path,
      dep,
      'Deployment',
      'apps',
      'im3',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.selector',
          message:
            // a selector is atomic: the applied one replaces it whole
            'Invalid value: {"matchExpressions":[{"key":"app","operator":"In","values":["a"]}]}: field is immutable',
        },
      ],
    );
  });

  it('[FINDING S10-IM3] a Deployment still takes replicas, template and strategy changes', async () => {
    const dep = await create(`${APPS}/deployments`, {
      metadata: { name: 'im3b' },
      spec: { selector: { matchLabels: { app: 'b' } }, template: template({ app: 'b' }) },
    });
    const r = await call(server, 'PUT', `${APPS}/deployments/im3b`, {
      ...dep,
      spec: {
        ...dep.spec,
        replicas: 3,
        template: template({ app: 'b', v: '2' }, 'nginx:1.26'),
        strategy: { type: 'Recreate' },
      },
    });
    expect(r.status).toBe(200);
    expect(r.json<any>().spec).toMatchObject({ replicas: 3, strategy: { type: 'Recreate' } });
    const scale = await call(
      server,
      'PATCH',
      `${APPS}/deployments/im3b/scale`,
      { spec: { replicas: 5 } },
      { contentType: MERGE },
    );
    expect(scale.status).toBe(200);
  });

  it('[FINDING S10-IM9] ReplicaSet and DaemonSet selectors are immutable in apps/v1 too', async () => {
    const rsPath = `${APPS}/replicasets/im9`;
    const rs = await create(`${APPS}/replicasets`, {
      metadata: { name: 'im9' },
      spec: { selector: { matchLabels: { app: 'r' } }, template: template({ app: 'r', x: 'y' }) },
    });
    await expectInvalid(
      await call(
        server,
        'PATCH',
        rsPath,
        { spec: { selector: { matchLabels: { x: 'y' } } } },
        { contentType: MERGE },
      ),
      rsPath,
      rs,
      'ReplicaSet',
      'apps',
      'im9',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.selector',
          message: 'Invalid value: {"matchLabels":{"app":"r","x":"y"}}: field is immutable',
        },
      ],
    );
    const dsPath = `${APPS}/daemonsets/im9`;
    const ds = await create(`${APPS}/daemonsets`, {
      metadata: { name: 'im9' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: template({ app: 'd', x: 'y' }) },
    });
    await expectInvalid(
      await call(server, 'PUT', dsPath, {
        ...ds,
        spec: { ...ds.spec, selector: { matchLabels: { x: 'y' } } },
      }),
      dsPath,
      ds,
      'DaemonSet',
      'apps',
      'im9',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.selector',
          message: 'Invalid value: {"matchLabels":{"x":"y"}}: field is immutable',
        },
      ],
    );
    // the template may change
    const ok = await call(
      server,
      'PATCH',
      dsPath,
      { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } },
      { contentType: STRATEGIC },
    );
    expect(ok.status).toBe(200);
  });

  // ---- StatefulSet ----

  it('[FINDING S10-IM4] a StatefulSet refuses changes to spec fields other than replicas, ordinals, template, updateStrategy, persistentVolumeClaimRetentionPolicy and minReadySeconds', async () => {
    const path = `${APPS}/statefulsets/im4`;
    const sts = await create(`${APPS}/statefulsets`, {
      metadata: { name: 'im4' },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: template({ app: 'db' }),
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    });
    const cause = {
      reason: 'FieldValueForbidden',
      field: 'spec',
      message:
        "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    };
    await expectInvalid(
      await call(server, 'PATCH', path, { spec: { serviceName: 'other' } }, { contentType: MERGE }),
      path,
      sts,
      'StatefulSet',
      'apps',
      'im4',
      [cause],
    );
    await expectInvalid(
      await call(
        server,
        'PATCH',
        path,
        [
          {
            op: 'replace',
            path: '/spec/volumeClaimTemplates/0/spec/resources/requests/storage',
            value: '2Gi',
          },
        ],
        { contentType: JSONPATCH },
      ),
      path,
      sts,
      'StatefulSet',
      'apps',
      'im4',
      [cause],
    );
    await expectInvalid(
      await call(server, 'PUT', `${path}?dryRun=All`, {
        ...sts,
        spec: { ...sts.spec, podManagementPolicy: 'Parallel' },
      }),
      path,
      sts,
      'StatefulSet',
      'apps',
      'im4',
      [cause],
    );
    const ok = await call(
      server,
      'PATCH',
      path,
      {
        spec: {
          replicas: 3,
          minReadySeconds: 5,
          updateStrategy: { type: 'OnDelete', rollingUpdate: null },
          template: template({ app: 'db', v: '2' }, 'postgres:16'),
          persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
        },
      },
      { contentType: MERGE },
    );
    expect(ok.status).toBe(200);
    expect(ok.json<any>().spec).toMatchObject({
      replicas: 3,
      minReadySeconds: 5,
      updateStrategy: { type: 'OnDelete' },
    });
  });

  // ---- Job ----

  it("[FINDING S10-IM5] a Job's spec.template and spec.completions are immutable (422), its parallelism and suspend are not", async () => {
    const path = `${BATCH}/jobs/im5`;
    const job = await create(`${BATCH}/jobs`, {
      metadata: { name: 'im5' },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    const r = await call(
      server,
      'PATCH',
      path,
      { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } },
      { contentType: STRATEGIC },
    );
    expect(r.status).toBe(422);
    const s = r.json<any>();
    expect(s.reason).toBe('Invalid');
    expect(s.details.causes).toHaveLength(1);
    expect(s.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'spec.template' });
    expect(s.details.causes[0].message).toMatch(
      /^Invalid value: \{.*"image":"busybox:2".*\}: field is immutable$/,
    );
    expect(s.message).toBe(`Job.batch "im5" is invalid: spec.template: ${s.details.causes[0].message}`);
    expect(await get(path)).toEqual(job);
    await expectInvalid(
      await call(server, 'PATCH', path, { spec: { completions: 3 } }, { contentType: MERGE }),
      path,
      job,
      'Job',
      'batch',
      'im5',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.completions',
          message: 'Invalid value: 3: field is immutable',
        },
      ],
    );
    const ok = await call(
      server,
      'PATCH',
      path,
      { spec: { parallelism: 2, suspend: true } },
      { contentType: MERGE },
    );
    expect(ok.status).toBe(200);
    expect(ok.json<any>().spec).toMatchObject({ parallelism: 2, suspend: true });
  });

  it("[FINDING S10-IM5] a suspended Job that never started takes changes to its template's labels, annotations and scheduling directives only", async () => {
    const path = `${BATCH}/jobs/im5b`;
    await create(`${BATCH}/jobs`, {
      metadata: { name: 'im5b' },
      spec: {
        suspend: true,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    const ok = await call(
      server,
      'PATCH',
      path,
      {
        spec: {
          template: {
            metadata: { labels: { queue: 'a' } },
            spec: { nodeSelector: { zone: 'z1' }, tolerations: [{ key: 'k', operator: 'Exists' }] },
          },
        },
      },
      { contentType: STRATEGIC },
    );
    expect(ok.status).toBe(200);
    const job = await get(path);
    const r = await call(
      server,
      'PATCH',
      path,
      { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } },
      { contentType: STRATEGIC },
    );
    expect(r.status).toBe(422);
    expect(r.json<any>().details.causes[0].field).toBe('spec.template');
    expect(await get(path)).toEqual(job);
  });

  // ---- Service ----

  it("[FINDING S10-IM6] a Service's allocated clusterIP cannot change (422 spec.clusterIPs[0] may not change once set); left out on update it is kept", async () => {
    const path = `${NS}/services/im6`;
    const svc = await create(`${NS}/services`, {
      metadata: { name: 'im6' },
      spec: { ports: [{ port: 80 }] },
    });
    const ip = svc.spec.clusterIP as string;
    expect(svc.spec.clusterIPs).toEqual([ip]);
    // a merge patch of clusterIP alone (clusterIPs kept from the stored object): kube normalizes clusterIPs to it
    await expectInvalid(
      await call(server, 'PATCH', path, { spec: { clusterIP: '10.96.200.200' } }, { contentType: MERGE }),
      path,
      svc,
      'Service',
      '',
      'im6',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.clusterIPs[0]',
          message: 'Invalid value: ["10.96.200.200"]: may not change once set',
        },
      ],
    );
    // a PUT with both fields changed
    const next = {
      ...svc,
      spec: { ...svc.spec, clusterIP: '10.96.200.201', clusterIPs: ['10.96.200.201'] },
    };
    await expectInvalid(await call(server, 'PUT', path, next), path, svc, 'Service', '', 'im6', [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.clusterIPs[0]',
        message: 'Invalid value: ["10.96.200.201"]: may not change once set',
      },
    ]);
    // a PUT that leaves clusterIP and clusterIPs out keeps the allocated ones
    const { clusterIP: _ip, clusterIPs: _ips, ...rest } = svc.spec;
    const kept = await call(server, 'PUT', path, { ...svc, spec: { ...rest, ports: [{ port: 81 }] } });
    expect(kept.status).toBe(200);
    expect(kept.json<any>().spec).toMatchObject({ clusterIP: ip, clusterIPs: [ip] });
  });

  it('[FINDING S10-IM6] a headless Service cannot get a cluster IP, and a ClusterIP Service cannot become headless', async () => {
    const path = `${NS}/services/im6b`;
    const svc = await create(`${NS}/services`, {
      metadata: { name: 'im6b' },
      spec: { clusterIP: 'None', ports: [{ port: 80 }] },
    });
    await expectInvalid(
      await call(
        server,
        'PATCH',
        path,
        { spec: { clusterIP: '10.96.201.1', clusterIPs: null } },
        { contentType: MERGE },
      ),
      path,
      svc,
      'Service',
      '',
      'im6b',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.clusterIPs[0]',
          message: 'Invalid value: ["10.96.201.1"]: may not change once set',
        },
      ],
    );
  });

  it('[FINDING S10-IM6] clusterIP "" on update keeps the allocated IP; a LoadBalancer\'s loadBalancerClass may not change', async () => {
    const svc = await create(`${NS}/services`, {
      metadata: { name: 'im6c' },
      spec: { ports: [{ port: 80 }] },
    });
    const cleared = await call(
      server,
      'PATCH',
      `${NS}/services/im6c`,
      { spec: { clusterIP: '' } },
      { contentType: MERGE },
    );
    expect(cleared.status).toBe(200);
    expect(cleared.json<any>().spec.clusterIP).toBe(svc.spec.clusterIP);
    const path = `${NS}/services/im6d`;
    const lb = await create(`${NS}/services`, {
      metadata: { name: 'im6d' },
      spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/a', ports: [{ port: 80 }] },
    });
    await expectInvalid(
      await call(
        server,
        'PATCH',
        path,
        { spec: { loadBalancerClass: 'example.com/b' } },
        { contentType: MERGE },
      ),
      path,
      lb,
      'Service',
      '',
      'im6d',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.loadBalancerClass',
          message: 'Invalid value: "example.com/b": may not change once set',
        },
      ],
    );
  });

  // ---- PersistentVolumeClaim ----

  it("[FINDING S10-IM7] a PersistentVolumeClaim's spec is immutable after creation (422 Forbidden), except its storage request once bound", async () => {
    const path = `${NS}/persistentvolumeclaims/im7`;
    const pvc = await create(`${NS}/persistentvolumeclaims`, {
      metadata: { name: 'im7' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'standard',
        resources: { requests: { storage: '1Gi' } },
      },
    });
    const first =
      'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n';
    for (const [patch, type] of [
      [{ spec: { accessModes: ['ReadWriteMany'] } }, MERGE],
      [{ spec: { storageClassName: 'fast' } }, STRATEGIC],
      // not bound yet: the storage request is part of the immutable spec
      [{ spec: { resources: { requests: { storage: '2Gi' } } } }, MERGE],
    ] as const) {
      const r = await call(server, 'PATCH', path, patch, { contentType: type });
      expect(r.status).toBe(422);
      const s = r.json<any>();
      expect(s.details.causes).toHaveLength(1);
      expect(s.details.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
      expect(s.details.causes[0].message.startsWith(first)).toBe(true);
      expect(s.message).toBe(`PersistentVolumeClaim "im7" is invalid: spec: ${s.details.causes[0].message}`);
      expect(await get(path)).toEqual(pvc);
    }
    // volumeName may be set once (the binder does it)
    const bound = await call(server, 'PATCH', path, { spec: { volumeName: 'pv-1' } }, { contentType: MERGE });
    expect(bound.status).toBe(200);
    const st = await call(
      server,
      'PATCH',
      `${path}/status`,
      { status: { phase: 'Bound', capacity: { storage: '1Gi' } } },
      { contentType: MERGE },
    );
    expect(st.status).toBe(200);
    // bound: the storage request may grow
    const grown = await call(
      server,
      'PATCH',
      path,
      { spec: { resources: { requests: { storage: '2Gi' } } } },
      { contentType: MERGE },
    );
    expect(grown.status).toBe(200);
    expect(grown.json<any>().spec.resources.requests.storage).toBe('2Gi');
    // but volumeName, once set, may not change
    const before = await get(path);
    const r = await call(server, 'PATCH', path, { spec: { volumeName: 'pv-2' } }, { contentType: MERGE });
    expect(r.status).toBe(422);
    expect(r.json<any>().details.causes[0].message.startsWith(first)).toBe(true);
    expect(await get(path)).toEqual(before);
  });

  it("[FINDING S10-IM7] a PVC's volumeMode change is reported twice, as kube does: in the spec diff and under the path volumeMode", async () => {
    const path = `${NS}/persistentvolumeclaims/im7b`;
    const pvc = await create(`${NS}/persistentvolumeclaims`, {
      metadata: { name: 'im7b' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    const r = await call(server, 'PATCH', path, { spec: { volumeMode: 'Block' } }, { contentType: MERGE });
    expect(r.status).toBe(422);
    const causes = r.json<any>().details.causes;
    expect(causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: 'spec',
        message:
          'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n- spec.volumeMode: "Filesystem"\n+ spec.volumeMode: "Block"',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'volumeMode',
        message: 'Invalid value: "Block": field is immutable',
      },
    ]);
    expect(await get(path)).toEqual(pvc);
  });

  // ---- Pod ----

  it("[FINDING S10-IM8] a Pod's spec takes only image, activeDeadlineSeconds and added-toleration changes (422 Forbidden otherwise)", async () => {
    const path = `${NS}/pods/im8`;
    const pod = await create(`${NS}/pods`, { metadata: { name: 'im8' }, spec: podSpec() });
    const first =
      'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';
    for (const patch of [
      { spec: { containers: [{ name: 'c', env: [{ name: 'A', value: 'b' }] }] } },
      { spec: { restartPolicy: 'Never' } },
      { spec: { nodeSelector: { disk: 'ssd' } } },
    ]) {
      const r = await call(server, 'PATCH', path, patch, { contentType: STRATEGIC });
      expect(r.status).toBe(422);
      const s = r.json<any>();
      expect(s.details.causes).toHaveLength(1);
      expect(s.details.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
      expect(s.details.causes[0].message.startsWith(first)).toBe(true);
      expect(s.details.causes[0].message.length).toBeGreaterThan(first.length);
      expect(s.message).toBe(`Pod "im8" is invalid: spec: ${s.details.causes[0].message}`);
      expect(await get(path)).toEqual(pod);
    }
    // the diff names what changed (our rendering; kube prints go-cmp's diff of its Go structs)
    const env = await call(
      server,
      'PATCH',
      path,
      { spec: { restartPolicy: 'Never' } },
      { contentType: MERGE },
    );
    expect(env.json<any>().details.causes[0].message).toBe(
      `${first}- spec.restartPolicy: "Always"\n+ spec.restartPolicy: "Never"`,
    );
    await expectInvalid(
      await call(server, 'PUT', path, {
        ...pod,
        spec: { ...pod.spec, containers: [...pod.spec.containers, { name: 'd', image: 'busybox' }] },
      }),
      path,
      pod,
      'Pod',
      '',
      'im8',
      [
        {
          reason: 'FieldValueForbidden',
          field: 'spec.containers',
          message: 'Forbidden: pod updates may not add or remove containers',
        },
      ],
    );
    // allowed: image, tolerations added, activeDeadlineSeconds set then lowered
    const ok = await call(
      server,
      'PATCH',
      path,
      {
        spec: {
          containers: [{ name: 'c', image: 'nginx:1.26' }],
          tolerations: [{ key: 'k', operator: 'Exists' }],
          activeDeadlineSeconds: 100,
        },
      },
      { contentType: STRATEGIC },
    );
    expect(ok.status).toBe(200);
    expect(ok.json<any>().spec.containers[0].image).toBe('nginx:1.26');
    const lower = await call(
      server,
      'PATCH',
      path,
      { spec: { activeDeadlineSeconds: 50 } },
      { contentType: MERGE },
    );
    expect(lower.status).toBe(200);
    const stored = await get(path);
    await expectInvalid(
      await call(server, 'PATCH', path, { spec: { activeDeadlineSeconds: 60 } }, { contentType: MERGE }),
      path,
      stored,
      'Pod',
      '',
      'im8',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.activeDeadlineSeconds',
          message: 'Invalid value: 60: must be less than or equal to previous value',
        },
      ],
    );
    await expectInvalid(
      await call(server, 'PATCH', path, { spec: { tolerations: null } }, { contentType: MERGE }),
      path,
      stored,
      'Pod',
      '',
      'im8',
      [
        {
          reason: 'FieldValueForbidden',
          field: 'spec.tolerations',
          message: 'Forbidden: existing toleration can not be modified except its tolerationSeconds',
        },
      ],
    );
    // labels and status stay writable
    const labels = await call(
      server,
      'PATCH',
      path,
      { metadata: { labels: { a: 'b' } } },
      { contentType: MERGE },
    );
    expect(labels.status).toBe(200);
    const status = await call(
      server,
      'PATCH',
      `${path}/status`,
      { status: { phase: 'Running' } },
      { contentType: MERGE },
    );
    expect(status.status).toBe(200);
  });

  // ---- RoleBinding ----

  it("[FINDING S10-IM10] a RoleBinding's roleRef cannot change (422 cannot change roleRef)", async () => {
    const path = `${RBAC}/rolebindings/im10`;
    const rb = await create(`${RBAC}/rolebindings`, {
      metadata: { name: 'im10' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    await expectInvalid(
      await call(server, 'PATCH', path, { roleRef: { name: 'edit' } }, { contentType: MERGE }),
      path,
      rb,
      'RoleBinding',
      'rbac.authorization.k8s.io',
      'im10',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'roleRef',
          message:
            'Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: cannot change roleRef',
        },
      ],
    );
    const ok = await call(
      server,
      'PATCH',
      path,
      { subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }] },
      { contentType: MERGE },
    );
    expect(ok.status).toBe(200);
  });
});
