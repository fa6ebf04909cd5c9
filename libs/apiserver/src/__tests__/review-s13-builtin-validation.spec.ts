/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review S13: built-in kinds beyond pods, workloads and Services that kube-apiserver 1.32 refuses
 * with a 422 were stored (pkg/apis/core/validation ValidateSecret, ValidateConfigMap,
 * ValidatePersistentVolumeClaimSpec; pkg/apis/batch/validation; pkg/apis/apps/validation;
 * pkg/apis/rbac/validation; pkg/apis/networking/validation): an operator creating a TLS Secret
 * without its key, a claim without a storage request, a CronJob with a bad schedule, an RBAC rule
 * without verbs or an Ingress backend without a port passed its tests here and failed on a cluster.
 */
const NS = '/namespaces/default';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const podTemplate = {
  spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox:1.36' }] },
};

describe('review s13: built-in kinds validation', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  /** The `field: message` of each cause of a 422 (or the status when it is not one). */
  const refused = async (path: string, body: unknown, method = 'POST'): Promise<string[]> => {
    const r = await call(server, method, path, body);
    if (r.status !== 422) return [`status ${r.status}`];
    return r.json<any>().details.causes.map((c: any) => `${c.field}: ${c.message}`);
  };
  const created = async (path: string, body: unknown): Promise<number> =>
    (await call(server, 'POST', path, body)).status;

  describe('core', () => {
    const SECRETS = `/api/v1${NS}/secrets`;
    const CONFIGMAPS = `/api/v1${NS}/configmaps`;
    const CLAIMS = `/api/v1${NS}/persistentvolumeclaims`;

    it('[FINDING S13-BV1] a Secret of a typed kind needs the keys its type requires, and valid key names', async () => {
      const secret = (name: string, type: string, data: Record<string, string>, extra: object = {}) => ({
        metadata: { name, ...extra },
        type,
        data,
      });
      expect(await refused(SECRETS, secret('tls', 'kubernetes.io/tls', { 'tls.crt': b64('cert') }))).toEqual([
        'data[tls.key]: Required value',
      ]);
      // stringData counts as data
      expect(
        await refused(SECRETS, {
          metadata: { name: 'tls-string' },
          type: 'kubernetes.io/tls',
          stringData: { 'tls.key': 'key' },
        }),
      ).toEqual(['data[tls.crt]: Required value']);
      expect(await refused(SECRETS, secret('docker', 'kubernetes.io/dockerconfigjson', {}))).toEqual([
        'data[.dockerconfigjson]: Required value',
      ]);
      expect(
        await refused(
          SECRETS,
          secret('docker-bad', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('auths') }),
        ),
      ).toEqual([
        `data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'a' looking for beginning of value`,
      ]);
      expect(await refused(SECRETS, secret('basic', 'kubernetes.io/basic-auth', {}))).toEqual([
        'data[username]: Required value',
        'data[password]: Required value',
      ]);
      expect(
        await refused(SECRETS, secret('ssh', 'kubernetes.io/ssh-auth', { 'ssh-privatekey': '' })),
      ).toEqual(['data[ssh-privatekey]: Required value']);
      expect(await refused(SECRETS, secret('token', 'kubernetes.io/service-account-token', {}))).toEqual([
        'metadata.annotations[kubernetes.io/service-account.name]: Required value',
      ]);
      expect(
        await refused(SECRETS, secret('keys', 'Opaque', { 'a/b': b64('x'), '..hidden': b64('y') })),
      ).toEqual([
        `data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
        `data[..hidden]: Invalid value: "..hidden": must not start with '..'`,
      ]);
      // what kube accepts
      expect(
        await created(
          SECRETS,
          secret('tls-ok', 'kubernetes.io/tls', { 'tls.crt': b64('c'), 'tls.key': b64('k') }),
        ),
      ).toBe(201);
      expect(await created(SECRETS, secret('basic-ok', 'kubernetes.io/basic-auth', { password: '' }))).toBe(
        201,
      );
      expect(
        await created(
          SECRETS,
          secret('docker-ok', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('{"auths":{}}') }),
        ),
      ).toBe(201);
      expect(await created(SECRETS, secret('custom-ok', 'example.com/custom', { 'a.b_c-D': b64('x') }))).toBe(
        201,
      );
    });

    it('[FINDING S13-BV2] a ConfigMap needs valid config keys and no key in both data and binaryData', async () => {
      expect(
        await refused(CONFIGMAPS, {
          metadata: { name: 'bad' },
          data: { 'app.properties': 'a=1', 'conf/x': 'y' },
          binaryData: { 'app.properties': b64('z') },
        }),
      ).toEqual([
        'data[app.properties]: Invalid value: "app.properties": duplicate of key present in binaryData',
        `data[conf/x]: Invalid value: "conf/x": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      ]);
      expect(await refused(CONFIGMAPS, { metadata: { name: 'dot' }, binaryData: { '.': b64('z') } })).toEqual(
        [`binaryData[.]: Invalid value: ".": must not be '.'`],
      );
      expect(
        await refused(CONFIGMAPS, { metadata: { name: 'big' }, data: { big: 'x'.repeat(1024 * 1024 + 1) } }),
      ).toEqual([': Too long: may not be more than 1048576 bytes']);
      expect(
        await created(CONFIGMAPS, {
          metadata: { name: 'ok' },
          data: { 'a.b': '1', A_B: '2' },
          binaryData: { c: b64('3') },
        }),
      ).toBe(201);
    });

    it('[FINDING S13-BV3] a PersistentVolumeClaim needs an access mode and a storage request above zero', async () => {
      const claim = (name: string, spec: object) => ({ metadata: { name }, spec });
      expect(await refused(CLAIMS, claim('empty', {}))).toEqual([
        'spec.accessModes: Required value: at least 1 access mode is required',
        'spec.resources[storage]: Required value',
      ]);
      expect(
        await refused(
          CLAIMS,
          claim('modes', {
            accessModes: ['ReadWriteOncePod', 'ReadWriteOnce', 'WriteOnly'],
            resources: { requests: { storage: '0' } },
          }),
        ),
      ).toEqual([
        'spec.accessModes: Unsupported value: "WriteOnly": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
        'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
        'spec.resources[storage]: Invalid value: "0": must be greater than zero',
      ]);
      expect(
        await created(
          CLAIMS,
          claim('ok', { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }),
        ),
      ).toBe(201);
    });
  });

  describe('batch', () => {
    const JOBS = `/apis/batch/v1${NS}/jobs`;
    const CRONJOBS = `/apis/batch/v1${NS}/cronjobs`;
    const cronJob = (name: string, spec: object) => ({
      metadata: { name },
      spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate } }, ...spec },
    });

    it('[FINDING S13-BV4] a CronJob needs a schedule cron parses, a known time zone and concurrency policy', async () => {
      expect(await refused(CRONJOBS, cronJob('none', { schedule: '' }))).toEqual([
        'spec.schedule: Required value',
      ]);
      expect(await refused(CRONJOBS, cronJob('fields', { schedule: '*/5 * * *' }))).toEqual([
        'spec.schedule: Invalid value: "*/5 * * *": expected exactly 5 fields, found 4: [*/5 * * *]',
      ]);
      expect(await refused(CRONJOBS, cronJob('range', { schedule: '0 24 * * *' }))).toEqual([
        'spec.schedule: Invalid value: "0 24 * * *": end of range (24) above maximum (23): 24',
      ]);
      expect(await refused(CRONJOBS, cronJob('word', { schedule: '0 0 * * monday' }))).toEqual([
        'spec.schedule: Invalid value: "0 0 * * monday": failed to parse int from monday: strconv.Atoi: parsing "monday": invalid syntax',
      ]);
      expect(await refused(CRONJOBS, cronJob('descriptor', { schedule: '@fortnightly' }))).toEqual([
        'spec.schedule: Invalid value: "@fortnightly": unrecognized descriptor: @fortnightly',
      ]);
      expect(await refused(CRONJOBS, cronJob('tz', { schedule: 'CRON_TZ=UTC 0 0 * * *' }))).toEqual([
        'spec.schedule: Invalid value: "CRON_TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
      ]);
      expect(await refused(CRONJOBS, cronJob('zone', { timeZone: 'Mars/Olympus_Mons' }))).toEqual([
        'spec.timeZone: Invalid value: "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons',
      ]);
      expect(
        await refused(
          CRONJOBS,
          cronJob('policy', { concurrencyPolicy: 'Skip', successfulJobsHistoryLimit: -1 }),
        ),
      ).toEqual([
        'spec.concurrencyPolicy: Unsupported value: "Skip": supported values: "Allow", "Forbid", "Replace"',
        'spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
      ]);
      expect(await refused(CRONJOBS, cronJob('a'.repeat(53), {}))).toEqual([
        `metadata.name: Invalid value: "${'a'.repeat(53)}": must be no more than 52 characters`,
      ]);
      for (const [name, spec] of [
        ['ok-steps', { schedule: '*/15 1-5,7 * jan-jun MON-FRI' }],
        ['ok-daily', { schedule: '@daily', timeZone: 'Europe/Berlin' }],
        ['ok-every', { schedule: '@every 1h30m', concurrencyPolicy: 'Forbid' }],
      ] as const)
        expect(await created(CRONJOBS, cronJob(name, spec))).toBe(201);
    });

    it('[FINDING S13-BV16] keys named like Object.prototype members are plain keys: a ConfigMap key __proto__ is stored, a schedule naming constructor is refused as cron refuses it', async () => {
      // the data-and-binaryData check looked keys up with `in` (so __proto__ was "in" any map) and
      // the schedule's month and weekday names with a plain object lookup
      const cm = await call(
        server,
        'POST',
        `/api/v1${NS}/configmaps`,
        JSON.parse('{"metadata":{"name":"proto-keys"},"data":{"__proto__":"a","constructor":"b"}}'),
      );
      expect(cm.status).toBe(201);
      const schedule = '0 0 1 constructor *';
      expect(
        await refused(`/apis/batch/v1${NS}/cronjobs`, {
          metadata: { name: 'proto-month' },
          spec: {
            schedule,
            jobTemplate: {
              spec: {
                template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
              },
            },
          },
        }),
      ).toEqual([
        `spec.schedule: Invalid value: "${schedule}": failed to parse int from constructor: strconv.Atoi: parsing "constructor": invalid syntax`,
      ]);
    });

    it('[FINDING S13-BV5] a Job needs non-negative counts and a known completion mode', async () => {
      const job = (name: string, spec: object) => ({
        metadata: { name },
        spec: { template: podTemplate, ...spec },
      });
      expect(
        await refused(JOBS, job('counts', { parallelism: -1, completions: -2, backoffLimit: -3 })),
      ).toEqual([
        'spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
        'spec.completions: Invalid value: -2: must be greater than or equal to 0',
        'spec.backoffLimit: Invalid value: -3: must be greater than or equal to 0',
      ]);
      expect(await refused(JOBS, job('mode', { completionMode: 'Sequential' }))).toEqual([
        'spec.completionMode: Unsupported value: "Sequential": supported values: "NonIndexed", "Indexed"',
      ]);
      expect(await refused(JOBS, job('indexed', { completionMode: 'Indexed', parallelism: 2 }))).toEqual([
        'spec.completions: Required value: when completion mode is Indexed',
      ]);
      expect(await refused(JOBS, job('per-index', { backoffLimitPerIndex: 1 }))).toEqual([
        'spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode',
      ]);
      expect(
        await created(
          JOBS,
          job('ok', { completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimitPerIndex: 1 }),
        ),
      ).toBe(201);
    });
  });

  describe('batch updates', () => {
    it("[FINDING S13-BV10] an Indexed Job's completions change only with its parallelism; backoffLimitPerIndex is immutable", async () => {
      const JOBS = `/apis/batch/v1${NS}/jobs`;
      expect(
        await created(JOBS, {
          metadata: { name: 'elastic' },
          spec: {
            completionMode: 'Indexed',
            completions: 3,
            parallelism: 3,
            backoffLimitPerIndex: 1,
            template: podTemplate,
          },
        }),
      ).toBe(201);
      const patch = async (body: object): Promise<string[]> => {
        const r = await call(server, 'PATCH', `${JOBS}/elastic`, body, {
          contentType: 'application/merge-patch+json',
        });
        if (r.status !== 422) return [`status ${r.status}`];
        return r.json<any>().details.causes.map((c: any) => `${c.field}: ${c.message}`);
      };
      expect(await patch({ spec: { completions: 4 } })).toEqual([
        'spec.completions: Invalid value: 4: can only be modified in tandem with spec.parallelism',
      ]);
      expect(await patch({ spec: { backoffLimitPerIndex: 2 } })).toEqual([
        'spec.backoffLimitPerIndex: Invalid value: 2: field is immutable',
      ]);
      // scaling both together is what kube allows
      expect(await patch({ spec: { completions: 5, parallelism: 5 } })).toEqual(['status 200']);
    });
  });

  describe('pod failure policy', () => {
    it("[FINDING S13-BV14] a Job's podFailurePolicy needs pods that restart Never and well-formed rules", async () => {
      const JOBS = `/apis/batch/v1${NS}/jobs`;
      const job = (name: string, podFailurePolicy: object, restartPolicy = 'Never') => ({
        metadata: { name },
        spec: {
          podFailurePolicy,
          template: { spec: { restartPolicy, containers: [{ name: 'app', image: 'busybox:1.36' }] } },
        },
      });
      const ignoreDisruption = {
        rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }],
      };
      expect(await refused(JOBS, job('restart', ignoreDisruption, 'OnFailure'))).toEqual([
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
      ]);
      expect(
        await refused(
          JOBS,
          job('rules', {
            rules: [
              {
                action: 'Retry',
                onExitCodes: { operator: 'In', values: [3, 0, 1, 1], containerName: 'main' },
              },
              { action: 'FailJob' },
            ],
          }),
        ),
      ).toEqual([
        'spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
        'spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "main": must be one of the container or initContainer names in the pod template',
        'spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator',
        'spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Duplicate value: 1',
        'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [3,0,1,1]: must be ordered',
        'spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
      ]);
      expect(
        await created(
          JOBS,
          job('pfp-ok', {
            rules: [
              ...ignoreDisruption.rules,
              { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
            ],
          }),
        ),
      ).toBe(201);
    });
  });

  describe('apps', () => {
    const APPS = `/apis/apps/v1${NS}`;
    const workload = (name: string, spec: object) => ({
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
        },
        ...spec,
      },
    });

    it('[FINDING S13-BV6] Deployments, DaemonSets and StatefulSets need rollout settings kube can roll out', async () => {
      const DEPLOYMENTS = `${APPS}/deployments`;
      expect(
        await refused(
          DEPLOYMENTS,
          workload('zero', { strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } } }),
        ),
      ).toEqual([
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
      ]);
      expect(
        await refused(
          DEPLOYMENTS,
          workload('over', { strategy: { rollingUpdate: { maxUnavailable: '150%', maxSurge: 'x' } } }),
        ),
      ).toEqual([
        `spec.strategy.rollingUpdate.maxSurge: Invalid value: "x": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
      ]);
      expect(
        await refused(
          DEPLOYMENTS,
          workload('recreate', { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }),
        ),
      ).toEqual([
        "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
      ]);
      expect(
        await refused(
          DEPLOYMENTS,
          workload('deadline', { minReadySeconds: 30, progressDeadlineSeconds: 30 }),
        ),
      ).toEqual(['spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds']);
      expect(await refused(DEPLOYMENTS, workload('history', { revisionHistoryLimit: -1 }))).toEqual([
        'spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
      ]);
      expect(
        await created(
          DEPLOYMENTS,
          workload('ok', { strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }),
        ),
      ).toBe(201);
      expect(await created(DEPLOYMENTS, workload('ok-recreate', { strategy: { type: 'Recreate' } }))).toBe(
        201,
      );

      const DAEMONSETS = `${APPS}/daemonsets`;
      // maxUnavailable defaults to 1: a surge alone is refused
      expect(
        await refused(DAEMONSETS, workload('surge', { updateStrategy: { rollingUpdate: { maxSurge: 1 } } })),
      ).toEqual([
        'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero',
      ]);
      expect(
        await refused(
          DAEMONSETS,
          workload('none', { updateStrategy: { rollingUpdate: { maxUnavailable: 0 } } }),
        ),
      ).toEqual([
        'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
      ]);
      expect(
        await created(
          DAEMONSETS,
          workload('ok', { updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '10%' } } }),
        ),
      ).toBe(201);

      const STATEFULSETS = `${APPS}/statefulsets`;
      expect(
        await refused(
          STATEFULSETS,
          workload('policy', {
            serviceName: 'db',
            podManagementPolicy: 'Sequential',
            updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } },
          }),
        ),
      ).toEqual([
        `spec.podManagementPolicy: Invalid value: "Sequential": must be 'OrderedReady' or 'Parallel'`,
        `spec.updateStrategy.rollingUpdate: Invalid value: {"partition":1}: only allowed for updateStrategy 'RollingUpdate'`,
      ]);
      expect(
        await created(
          STATEFULSETS,
          workload('ok', {
            serviceName: 'db',
            podManagementPolicy: 'Parallel',
            updateStrategy: { type: 'OnDelete' },
          }),
        ),
      ).toBe(201);
    });
  });

  describe('rbac', () => {
    const RBAC = '/apis/rbac.authorization.k8s.io/v1';

    it('[FINDING S13-BV7] RBAC rules need verbs, groups and resources; bindings need a known roleRef and subjects', async () => {
      expect(
        await refused(`${RBAC}${NS}/roles`, {
          metadata: { name: 'bad' },
          rules: [
            { apiGroups: [''], resources: ['pods'] },
            { verbs: ['get'], resources: ['pods'] },
            { verbs: ['get'], nonResourceURLs: ['/healthz'] },
            { verbs: ['get'], apiGroups: [''], resources: ['pods', 'services'], resourceNames: ['a'] },
          ],
        }),
      ).toEqual([
        'rules[0].verbs: Required value: verbs must contain at least one value',
        'rules[1].apiGroups: Required value: resource rules must supply at least one api group',
        'rules[2].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
        'rules[3].resourceNames: Required value: resource names cannot apply to multiple resources',
      ]);
      expect(
        await refused(`${RBAC}/clusterroles`, {
          metadata: { name: 's13-bv7-bad' },
          rules: [{ verbs: ['get'], apiGroups: [''], nonResourceURLs: ['/metrics'] }],
        }),
      ).toEqual([
        'rules[0].nonResourceURLs: Invalid value: ["/metrics"]: rules cannot apply to both regular resources and non-resource URLs',
      ]);
      expect(
        await refused(`${RBAC}${NS}/rolebindings`, {
          metadata: { name: 'bad' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Roles', name: 'reader' },
          subjects: [
            { kind: 'ServiceAccount', name: 'default', apiGroup: 'v1' },
            { kind: 'Robot', name: 'r2' },
          ],
        }),
      ).toEqual([
        'roleRef.kind: Unsupported value: "Roles": supported values: "Role", "ClusterRole"',
        'subjects[0].apiGroup: Unsupported value: "v1": supported values: ""',
        'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      ]);
      expect(
        await refused(`${RBAC}/clusterrolebindings`, {
          metadata: { name: 's13-bv7-bad' },
          roleRef: { kind: 'Role', name: 'reader' },
          subjects: [{ kind: 'ServiceAccount', name: 'default' }],
        }),
      ).toEqual([
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
        'subjects[0].namespace: Required value',
      ]);
      // what kube accepts
      expect(
        await created(`${RBAC}${NS}/roles`, {
          metadata: { name: 'ok' },
          rules: [{ verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments'] }],
        }),
      ).toBe(201);
      expect(
        await created(`${RBAC}/clusterroles`, {
          metadata: { name: 's13-bv7-ok' },
          rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }],
        }),
      ).toBe(201);
      expect(
        await created(`${RBAC}${NS}/rolebindings`, {
          metadata: { name: 'ok' },
          roleRef: { kind: 'Role', name: 'ok' },
          subjects: [
            { kind: 'ServiceAccount', name: 'default' },
            { kind: 'User', name: 'alice' },
          ],
        }),
      ).toBe(201);
    });
  });

  describe('networking', () => {
    const INGRESSES = `/apis/networking.k8s.io/v1${NS}/ingresses`;
    const ingress = (name: string, backend: object, path: object = { path: '/', pathType: 'Prefix' }) => ({
      metadata: { name },
      spec: { rules: [{ host: 'example.com', http: { paths: [{ ...path, backend }] } }] },
    });
    const at = 'spec.rules[0].http.paths[0]';

    it('[FINDING S13-BV8] an Ingress backend needs a Service name and a port, and paths must be absolute', async () => {
      expect(await refused(INGRESSES, ingress('port', { service: { name: 'web' } }))).toEqual([
        `${at}.backend: Required value: port name or number is required`,
      ]);
      expect(
        await refused(
          INGRESSES,
          ingress('both', { service: { name: 'web', port: { name: 'http', number: 80 } } }),
        ),
      ).toEqual([`${at}.backend: Invalid value: "": cannot set both port name & port number`]);
      expect(await refused(INGRESSES, ingress('name', { service: { port: { number: 80 } } }))).toEqual([
        `${at}.backend.service.name: Required value`,
      ]);
      expect(await refused(INGRESSES, ingress('none', {}))).toEqual([
        `${at}.backend: Invalid value: "": resource or service backend is required`,
      ]);
      expect(
        await refused(
          INGRESSES,
          ingress(
            'relative',
            { service: { name: 'web', port: { number: 80 } } },
            { path: 'api', pathType: 'Prefix' },
          ),
        ),
      ).toEqual([`${at}.path: Invalid value: "api": must be an absolute path`]);
      expect(await refused(INGRESSES, { metadata: { name: 'empty' }, spec: {} })).toEqual([
        'spec: Invalid value: null: either `defaultBackend` or `rules` must be specified',
      ]);
      expect(
        await created(INGRESSES, ingress('ok', { service: { name: 'web', port: { name: 'http' } } })),
      ).toBe(201);
      expect(
        await created(INGRESSES, {
          metadata: { name: 'ok-default' },
          spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
        }),
      ).toBe(201);
    });
  });

  describe('networking hosts', () => {
    it('[FINDING S13-BV11] an Ingress host and TLS host must be a lowercase DNS name (not an IP, no port), paths no traversal', async () => {
      const INGRESSES = `/apis/networking.k8s.io/v1${NS}/ingresses`;
      const backend = { service: { name: 'web', port: { number: 80 } } };
      const withHost = (name: string, host: string, path = '/') => ({
        metadata: { name },
        spec: { rules: [{ host, http: { paths: [{ path, pathType: 'Prefix', backend }] } }] },
      });
      const subdomain = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
      expect(await refused(INGRESSES, withHost('port', 'example.com:8080'))).toEqual([
        `spec.rules[0].host: Invalid value: "example.com:8080": ${subdomain}`,
      ]);
      expect(await refused(INGRESSES, withHost('upper', 'Example.com'))).toEqual([
        `spec.rules[0].host: Invalid value: "Example.com": ${subdomain}`,
      ]);
      expect(await refused(INGRESSES, withHost('ip', '10.0.0.1'))).toEqual([
        'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
      ]);
      expect(await refused(INGRESSES, withHost('wild', '*.*.example.com'))).toEqual([
        `spec.rules[0].host: Invalid value: "*.*.example.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ]);
      expect(await refused(INGRESSES, withHost('traversal', 'example.com', '/static/../admin'))).toEqual([
        `spec.rules[0].http.paths[0].path: Invalid value: "/static/../admin": must not contain '/../'`,
      ]);
      expect(
        await refused(INGRESSES, {
          ...withHost('tls', 'example.com'),
          spec: {
            ...withHost('tls', 'example.com').spec,
            tls: [{ hosts: ['Example.com'], secretName: 'Web_TLS' }],
          },
        }),
      ).toEqual([
        `spec.tls[0].hosts[0]: Invalid value: "Example.com": ${subdomain}`,
        `spec.tls[0].secretName: Invalid value: "Web_TLS": ${subdomain}`,
      ]);
      expect(
        await created(INGRESSES, {
          ...withHost('ok-hosts', '*.example.com'),
          spec: {
            ...withHost('ok-hosts', '*.example.com').spec,
            tls: [{ hosts: ['*.example.com'], secretName: 'web-tls' }],
          },
        }),
      ).toBe(201);
    });
  });

  describe('endpoints and leases', () => {
    it('[FINDING S13-BV12] Endpoints need addresses that are valid, routable IPs and named ports when several', async () => {
      const ENDPOINTS = `/api/v1${NS}/endpoints`;
      expect(
        await refused(ENDPOINTS, {
          metadata: { name: 'db' },
          subsets: [
            { ports: [{ port: 5432 }] },
            {
              addresses: [{ ip: '127.0.0.1' }, { ip: 'db.example.com' }],
              ports: [{ port: 5432 }, { name: 'metrics', port: 0 }],
            },
          ],
        }),
      ).toEqual([
        'subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`',
        'subsets[1].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        'subsets[1].addresses[1].ip: Invalid value: "db.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        'subsets[1].addresses[1].ip: Invalid value: "db.example.com": must be a valid IP address',
        'subsets[1].ports[0].name: Required value',
        'subsets[1].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      ]);
      expect(
        await created(ENDPOINTS, {
          metadata: { name: 'db-ok' },
          subsets: [{ addresses: [{ ip: '10.1.2.3' }, { ip: '2001:db8::5' }], ports: [{ port: 5432 }] }],
        }),
      ).toBe(201);
    });

    it('[FINDING S13-BV13] a Lease needs a duration above 0 and transitions of 0 or more', async () => {
      const LEASES = `/apis/coordination.k8s.io/v1${NS}/leases`;
      expect(
        await refused(LEASES, {
          metadata: { name: 'leader' },
          spec: { holderIdentity: 'op-0', leaseDurationSeconds: 0, leaseTransitions: -1 },
        }),
      ).toEqual([
        'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
        'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      ]);
      expect(
        await created(LEASES, {
          metadata: { name: 'leader-ok' },
          spec: { holderIdentity: 'op-0', leaseDurationSeconds: 15 },
        }),
      ).toBe(201);
    });
  });

  describe('replication controllers', () => {
    it('[FINDING S13-BV15] a ReplicationController needs a selector matching its template and a valid pod template', async () => {
      const RCS = `/api/v1${NS}/replicationcontrollers`;
      expect(
        await refused(RCS, {
          metadata: { name: 'nolabels' },
          spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
        }),
      ).toEqual(['spec.selector: Required value']);
      expect(
        await refused(RCS, {
          metadata: { name: 'mismatch' },
          spec: {
            selector: { app: 'web' },
            template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'app' }] } },
          },
        }),
      ).toEqual([
        'spec.template.metadata.labels: Invalid value: {"app":"api"}: `selector` does not match template `labels`',
        'spec.template.spec.containers[0].image: Required value',
      ]);
      expect(
        await created(RCS, {
          metadata: { name: 'rc-ok' },
          spec: {
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
            },
          },
        }),
      ).toBe(201);
    });
  });

  describe('events', () => {
    it("[FINDING S13-BV9] an Event must be in its object's namespace, and a new-style Event needs its reporting fields", async () => {
      const involved = { apiVersion: 'example.com/v1', kind: 'Cluster', name: 'c1' };
      // a cluster-scoped object's core/v1 Event goes to default (client-go's recorder does that)
      expect(
        await refused('/api/v1/namespaces/kube-public/events', {
          metadata: { name: 'e1' },
          involvedObject: involved,
          reason: 'Synced',
          message: 'ok',
          type: 'Normal',
        }),
      ).toEqual(['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
      expect(
        await refused(`/api/v1${NS}/events`, {
          metadata: { name: 'e2' },
          involvedObject: { ...involved, kind: 'Pod', namespace: 'other' },
          reason: 'Synced',
          type: 'Normal',
        }),
      ).toEqual(['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
      // with an eventTime, core/v1 names the reporting controller reportingComponent
      expect(
        await refused(`/api/v1${NS}/events`, {
          metadata: { name: 'e3' },
          involvedObject: { ...involved, namespace: 'default' },
          eventTime: '2026-01-01T00:00:00.000000Z',
          reason: 'Synced',
          action: 'Reconcile',
          reportingInstance: 'op-0',
          type: 'Normal',
        }),
      ).toEqual([
        'reportingComponent: Required value',
        'reportingComponent: Invalid value: "": name part must be non-empty',
        `reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ]);
      const EVENTS = `/apis/events.k8s.io/v1${NS}/events`;
      expect(
        await refused(EVENTS, {
          metadata: { name: 'e4' },
          regarding: { ...involved, namespace: 'default' },
          reportingController: 'example.com/operator',
          reportingInstance: 'op-0',
          reason: 'Synced',
          type: 'Info',
          deprecatedCount: 2,
        }),
      ).toEqual([
        'eventTime: Required value',
        'type: Invalid value: "": has invalid value: Info',
        'count: Invalid value: "": needs to be unset',
      ]);
      expect(
        await created(`/api/v1${NS}/events`, {
          metadata: { name: 'ok-legacy' },
          involvedObject: involved,
          reason: 'Synced',
          type: 'Normal',
        }),
      ).toBe(201);
      expect(
        await created(EVENTS, {
          metadata: { name: 'ok-modern' },
          regarding: { ...involved, namespace: 'default' },
          eventTime: '2026-01-01T00:00:00.000000Z',
          reportingController: 'example.com/operator',
          reportingInstance: 'op-0',
          action: 'Reconcile',
          reason: 'Synced',
          type: 'Normal',
        }),
      ).toBe(201);
    });
  });
});
