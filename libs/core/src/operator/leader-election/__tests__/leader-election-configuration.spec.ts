import { describe, it, expect } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { leaderElectionConfiguration, operatorNamespace } from '../leader-election-configuration.js';
import type { LeaderElectionConfiguration } from '../leader-election-configuration.js';
import { InvalidLeaderElectionConfigurationError } from '../leader-election-errors.js';

const NO_FILE = { namespaceFile: '/nonexistent/namespace', env: {} };

function kubeConfigIn(namespace: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443' }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u', namespace }],
    currentContext: 'ctx',
  });
  return kc;
}

describe('leaderElectionConfiguration', () => {
  it('[OP-01] fills JOSDK/client-go defaults (15 s, 10 s, 2 s, exit on loss)', () => {
    const cfg = leaderElectionConfiguration(
      { leaseName: 'op-leader' },
      { ...NO_FILE, env: { HOSTNAME: 'pod-1' } },
    );
    expect(cfg).toEqual({
      leaseName: 'op-leader',
      leaseNamespace: 'default',
      identity: 'pod-1',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      exitOnStopLeading: true,
    });
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it('[OP-01] identity falls back to a random id without HOSTNAME', () => {
    const a = leaderElectionConfiguration({ leaseName: 'x' }, NO_FILE);
    const b = leaderElectionConfiguration({ leaseName: 'x' }, NO_FILE);
    expect(a.identity).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.identity).not.toBe(b.identity);
  });

  it('[OP-01] [FINDING S11-KC14] lease namespace: KubeConfig context, else in-cluster file, else default (client-go, fabric8: a context namespace wins)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tosdk-ns-'));
    const file = join(dir, 'namespace');
    writeFileSync(file, 'from-file\n');
    expect(operatorNamespace({ namespaceFile: file, kubeConfig: kubeConfigIn('from-ctx') })).toBe('from-ctx');
    expect(operatorNamespace({ namespaceFile: file, kubeConfig: kubeConfigIn(undefined) })).toBe('from-file');
    expect(operatorNamespace({ namespaceFile: '/nonexistent', kubeConfig: kubeConfigIn('from-ctx') })).toBe(
      'from-ctx',
    );
    expect(operatorNamespace({ namespaceFile: '/nonexistent', kubeConfig: kubeConfigIn(undefined) })).toBe(
      'default',
    );
    expect(
      leaderElectionConfiguration({ leaseName: 'x' }, { ...NO_FILE, kubeConfig: kubeConfigIn('ops') })
        .leaseNamespace,
    ).toBe('ops');
  });

  const invalid: Array<[string, Partial<LeaderElectionConfiguration>, RegExp]> = [
    ['an empty lease name', { leaseName: '' }, /leaseName "" must be a lower-case DNS subdomain/],
    ['an upper-case lease name', { leaseName: 'Leader' }, /leaseName "Leader"/],
    ['a bad namespace', { leaseNamespace: 'a.b' }, /leaseNamespace "a.b" must be a lower-case DNS label/],
    ['an empty identity', { identity: ' ' }, /identity must be a non-empty string/],
    ['a zero retry period', { retryPeriodMs: 0 }, /retryPeriodMs must be a positive number/],
    ['a NaN lease duration', { leaseDurationMs: NaN }, /leaseDurationMs must be a positive number/],
    ['a fractional-second lease', { leaseDurationMs: 15_500 }, /must be whole seconds/],
    [
      'renew deadline >= lease duration',
      { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 },
      /leaseDurationMs \(10000\) must be greater than renewDeadlineMs \(10000\)/,
    ],
    [
      'renew deadline <= 1.2 x retry period',
      { renewDeadlineMs: 2_400, retryPeriodMs: 2_000 },
      /renewDeadlineMs \(2400\) must be greater than 1.2 x retryPeriodMs \(2000\)/,
    ],
  ];
  it.each(invalid)('[OP-01] rejects %s with a typed error', (_name, override, message) => {
    const attempt = () => leaderElectionConfiguration({ leaseName: 'ok', ...override }, NO_FILE);
    expect(attempt).toThrow(InvalidLeaderElectionConfigurationError);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (e) {
      expect((e as InvalidLeaderElectionConfigurationError).code).toBe('InvalidLeaderElectionConfiguration');
    }
  });
});
