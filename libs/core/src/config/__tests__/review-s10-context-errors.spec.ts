import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { KubernetesClientConfigError } from '../../client/errors.js';
import { loadKubeConfig } from '../kube-config.js';

/**
 * Review (session 10): a kubeconfig whose current context cannot be used. The error said only "the
 * KubeConfig has no current cluster (current context "x")", whatever was wrong: it named neither
 * the file nor what to do (kubectl says which context or cluster is missing).
 */
const dir = mkdtempSync(join(tmpdir(), 'tosdk-s10-ctx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function clientFrom(name: string, text: string): unknown {
  const file = join(dir, name);
  writeFileSync(file, text);
  try {
    KubernetesClient.fromKubeConfig(
      loadKubeConfig({ env: { KUBECONFIG: file, HOME: '/nonexistent' } }),
    ).close();
    return undefined;
  } catch (error) {
    return error;
  }
}

const base = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: 'https://127.0.0.1:6443'}
users:
- name: u
  user: {token: abc}
`;

describe('review s10: kubeconfig context errors', () => {
  it('[FINDING S10-KC11] no current-context: the error names the file and how to choose one', () => {
    const error = clientFrom(
      'none.yaml',
      `${base}contexts:\n- name: ctx\n  context: {cluster: c, user: u}\n`,
    );
    expect(error).toBeInstanceOf(KubernetesClientConfigError);
    const message = (error as Error).message;
    expect(message).toContain(join(dir, 'none.yaml'));
    expect(message).toContain('no current-context');
    expect(message).toContain('kubectl config use-context');
  });

  it('[FINDING S10-KC11] a current-context that is not defined: the error names it, the file, and what to do', () => {
    const error = clientFrom(
      'missing.yaml',
      `${base}current-context: prod\ncontexts:\n- name: ctx\n  context: {cluster: c, user: u}\n`,
    );
    expect(error).toBeInstanceOf(KubernetesClientConfigError);
    const message = (error as Error).message;
    expect(message).toContain(join(dir, 'missing.yaml'));
    expect(message).toContain('no context "prod"');
    expect(message).toContain('kubectl config use-context');
  });

  it('[FINDING S10-KC11] a context naming a cluster that is not defined: the error names both and the file', () => {
    const error = clientFrom(
      'nocluster.yaml',
      `${base}current-context: ctx\ncontexts:\n- name: ctx\n  context: {cluster: gone, user: u}\n`,
    );
    expect(error).toBeInstanceOf(KubernetesClientConfigError);
    const message = (error as Error).message;
    expect(message).toContain(join(dir, 'nocluster.yaml'));
    expect(message).toContain('context "ctx"');
    expect(message).toContain('cluster "gone"');
  });
});
