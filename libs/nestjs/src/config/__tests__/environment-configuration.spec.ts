import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  controllerOptionsFromEnvironment,
  controllerVariablePrefix,
  operatorOptionsFromEnvironment,
  unknownControllerVariables,
} from '../environment-configuration.js';
import { parseDuration } from '../environment-values.js';
import { loadClientNodeKubeConfig } from '../kube-config.loader.js';

const P = 'TOSDK_CONTROLLER_WEBPAGE_';

describe('TOSDK_* environment configuration', () => {
  it('[OP-05] maps operator-level variables to operator options', () => {
    expect(
      operatorOptionsFromEnvironment({
        TOSDK_CONCURRENT_RECONCILIATION_THREADS: '7',
        TOSDK_CACHE_SYNC_TIMEOUT: '2m',
        TOSDK_TERMINATION_TIMEOUT: '1500',
        TOSDK_CHECK_CRD: 'TRUE',
        TOSDK_STOP_ON_INFORMER_ERROR_DURING_STARTUP: 'no',
        TOSDK_USE_SSA: '0',
        TOSDK_CURRENT_NAMESPACE: 'ops',
        UNRELATED: 'x',
      }),
    ).toEqual({
      concurrentReconciliationThreads: 7,
      cacheSyncTimeoutMs: 120_000,
      terminationTimeoutMs: 1500,
      checkCrdAndValidateLocalModel: true,
      stopOnInformerErrorDuringStartup: false,
      useSSAToPatchPrimaryResource: false,
      currentNamespace: 'ops',
    });
    expect(operatorOptionsFromEnvironment({ TOSDK_USE_SSA: '  ' })).toEqual({});
  });

  it('[OP-05] maps per-controller variables to controller options', () => {
    expect(
      controllerOptionsFromEnvironment(
        {
          [`${P}NAMESPACES`]: 'a, b,,c',
          [`${P}LABEL_SELECTOR`]: 'tier=gold',
          [`${P}FIELD_SELECTOR`]: 'metadata.name=x',
          [`${P}FINALIZER`]: 'example.com/f',
          [`${P}GENERATION_AWARE`]: 'false',
          [`${P}RETRY_MAX_ATTEMPTS`]: '-1',
          [`${P}RETRY_INITIAL_INTERVAL`]: '1.5s',
          [`${P}RETRY_INTERVAL_MULTIPLIER`]: '2',
          [`${P}RETRY_MAX_INTERVAL`]: '1m',
          [`${P}MAX_RECONCILIATION_INTERVAL`]: 'off',
          [`${P}RATE_LIMIT`]: '5/10s',
          [`${P}FIELD_MANAGER`]: 'fm',
          [`${P}RECONCILE_TIMEOUT`]: '30s',
        },
        'webpage',
      ),
    ).toEqual({
      namespaces: ['a', 'b', 'c'],
      labelSelector: 'tier=gold',
      fieldSelector: 'metadata.name=x',
      finalizerName: 'example.com/f',
      generationAware: false,
      retry: { maxAttempts: -1, initialInterval: 1500, intervalMultiplier: 2, maxInterval: 60_000 },
      maxReconciliationIntervalMs: -1,
      rateLimiter: { limitForPeriod: 5, refreshPeriodMs: 10_000 },
      fieldManager: 'fm',
      reconcileTimeoutMs: 30_000,
    });
  });

  it('[OP-05] merges retry variables over retry options field by field', () => {
    const o = controllerOptionsFromEnvironment({ [`${P}RETRY_MAX_ATTEMPTS`]: '2' }, 'webpage', {
      retry: { maxAttempts: 9, initialInterval: 100 },
    });
    expect(o.retry).toEqual({ maxAttempts: 2, initialInterval: 100 });
  });

  it('names controllers in variables upper-cased with other characters as _', () => {
    expect(controllerVariablePrefix('web-page.v2')).toBe('TOSDK_CONTROLLER_WEB_PAGE_V2_');
  });

  it.each([
    ['TOSDK_CONCURRENT_RECONCILIATION_THREADS', '0'],
    ['TOSDK_CONCURRENT_RECONCILIATION_THREADS', '1.5'],
    ['TOSDK_CACHE_SYNC_TIMEOUT', '10 minutes'],
    ['TOSDK_CHECK_CRD', 'perhaps'],
  ])('[OP-05] rejects %s=%s with a typed error naming the variable', (variable, value) => {
    expect(() => operatorOptionsFromEnvironment({ [variable]: value })).toThrow(
      expect.objectContaining({ code: 'InvalidEnvironmentConfiguration', variable }),
    );
  });

  it.each([
    ['RETRY_MAX_ATTEMPTS', '-2'],
    ['RETRY_INTERVAL_MULTIPLIER', '0'],
    ['MAX_RECONCILIATION_INTERVAL', 'soon'],
    ['RATE_LIMIT', '0/1s'],
    ['RATE_LIMIT', '3 per second'],
    ['GENERATION_AWARE', 'y'],
    ['RECONCILE_TIMEOUT', 'off'],
  ])('[OP-05] rejects TOSDK_CONTROLLER_WEBPAGE_%s=%s naming the variable', (suffix, value) => {
    expect(() => controllerOptionsFromEnvironment({ [`${P}${suffix}`]: value }, 'webpage')).toThrow(
      expect.objectContaining({ variable: `${P}${suffix}`, message: expect.stringContaining(value) }),
    );
  });

  it('lists controller variables that match no controller or suffix', () => {
    expect(
      unknownControllerVariables(
        { [`${P}NAMESPACES`]: 'a', [`${P}NAMESPACE`]: 'typo', TOSDK_CONTROLLER_OTHER_LABEL_SELECTOR: 'x' },
        ['webpage'],
      ).sort(),
    ).toEqual(['TOSDK_CONTROLLER_OTHER_LABEL_SELECTOR', `${P}NAMESPACE`]);
  });

  it('[FINDING S8-NE6] refuses durations longer than a Node timer can wait, naming the variable', () => {
    // 596h fits in 2^31-1 ms; 597h does not (Node would fire such a timer after 1 ms)
    expect(
      controllerOptionsFromEnvironment({ [`${P}MAX_RECONCILIATION_INTERVAL`]: '596h' }, 'webpage'),
    ).toEqual({
      maxReconciliationIntervalMs: 596 * 3_600_000,
    });
    for (const [variable, value] of [
      [`${P}MAX_RECONCILIATION_INTERVAL`, '720h'],
      [`${P}RECONCILE_TIMEOUT`, '2147483648'],
      [`${P}RETRY_MAX_INTERVAL`, '597h'],
      [`${P}RATE_LIMIT`, '1/720h'],
    ]) {
      expect(() => controllerOptionsFromEnvironment({ [variable]: value }, 'webpage')).toThrow(
        expect.objectContaining({
          code: 'InvalidEnvironmentConfiguration',
          variable,
          message: expect.stringContaining('2147483647 ms'),
        }),
      );
    }
    for (const variable of ['TOSDK_CACHE_SYNC_TIMEOUT', 'TOSDK_TERMINATION_TIMEOUT']) {
      expect(() => operatorOptionsFromEnvironment({ [variable]: '720h' })).toThrow(
        expect.objectContaining({ code: 'InvalidEnvironmentConfiguration', variable }),
      );
    }
  });

  it('[FINDING S8-NE5] refuses NAMESPACES and FINALIZER values core would refuse, naming the variable', () => {
    expect(
      controllerOptionsFromEnvironment(
        { [`${P}NAMESPACES`]: 'team-a, JOSDK_WATCH_CURRENT', [`${P}FINALIZER`]: 'example.com/f' },
        'webpage',
      ),
    ).toEqual({ namespaces: ['team-a', 'JOSDK_WATCH_CURRENT'], finalizerName: 'example.com/f' });
    for (const [variable, value] of [
      [`${P}NAMESPACES`, 'team_a,Team-B'],
      [`${P}NAMESPACES`, 'JOSDK_ALL_NAMESPACES,a'],
      [`${P}FINALIZER`, 'not a finalizer'],
    ]) {
      expect(() => controllerOptionsFromEnvironment({ [variable]: value }, 'webpage')).toThrow(
        expect.objectContaining({ code: 'InvalidEnvironmentConfiguration', variable }),
      );
    }
  });

  it('parses durations with units', () => {
    expect([
      parseDuration('250ms'),
      parseDuration('2s'),
      parseDuration('3m'),
      parseDuration('1h'),
      parseDuration('40'),
    ]).toEqual([250, 2000, 180_000, 3_600_000, 40]);
    expect(parseDuration('1d')).toBeUndefined();
  });
});

describe('loadClientNodeKubeConfig', () => {
  it('[FINDING S11-KC15] reads KUBECONFIG (missing files skipped, none left: the service account in a pod), else ~/.kube/config, and otherwise fails with what to do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tosdk-kc-'));
    try {
      const file = join(dir, 'config');
      await writeFile(
        file,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
          users: [{ name: 'u', user: { token: 't' } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'ns' } }],
          'current-context': 'x',
        }),
      );
      expect(
        loadClientNodeKubeConfig({
          KUBECONFIG: `${join(dir, 'missing')}:${file}`,
          HOME: dir,
        }).getCurrentCluster()?.server,
      ).toBe('https://127.0.0.1:6443');
      expect(() => loadClientNodeKubeConfig({ KUBECONFIG: join(dir, 'missing'), HOME: dir })).toThrow(
        expect.objectContaining({ code: 'KubeConfigNotFound' }),
      );
      // in a pod, KUBECONFIG naming only missing files means the service account, as client-go's
      // loading rules skip missing files and then use the in-cluster configuration
      expect(
        loadClientNodeKubeConfig({
          KUBECONFIG: join(dir, 'missing'),
          HOME: dir,
          KUBERNETES_SERVICE_HOST: '10.96.0.1',
          KUBERNETES_SERVICE_PORT: '443',
        }).getCurrentCluster()?.server,
      ).toBe('https://10.96.0.1:443');
      expect(() => loadClientNodeKubeConfig({ HOME: dir })).toThrow(
        expect.objectContaining({
          code: 'KubeConfigNotFound',
          message: expect.stringContaining('KUBECONFIG'),
        }),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
