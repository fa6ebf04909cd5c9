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
});
