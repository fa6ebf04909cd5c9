import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiServer } from '@tosdk/apiserver';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { UpdateControl } from '../../api/controls.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { Operator } from '../../operator/operator.js';
import { KubeConfigError, loadKubeConfig } from '../kube-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tosdk-kubeconfig-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const noHome = { HOME: join(dir, 'no-home') };

describe('loadKubeConfig: kubeconfig files and in-cluster configuration without @kubernetes/client-node', () => {
  let server: KubeApiServer;
  let kubeconfig: string;

  beforeAll(async () => {
    server = await KubeApiServer.start();
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('reads the file KUBECONFIG names (CA data, token, context namespace) and the client works against the server', async () => {
    const kc = loadKubeConfig({ env: { ...noHome, KUBECONFIG: kubeconfig } });
    expect(kc.getCurrentCluster()?.server).toBe(server.url);
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('default');
    const client = KubernetesClient.fromKubeConfig(kc);
    const cm = await client.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'via-light', namespace: 'default' },
    });
    expect(cm.metadata?.uid).toBeTruthy();
    client.close();
  });

  it('an operator runs from it', async () => {
    const kubeConfig = loadKubeConfig({ env: { ...noHome, KUBECONFIG: kubeconfig } });
    const seen: string[] = [];
    const operator = new Operator({ kubeConfig });
    operator.register(
      {
        reconcile: (cm: V1ConfigMap) => {
          seen.push(cm.metadata!.name!);
          return UpdateControl.noUpdate<V1ConfigMap>();
        },
      },
      { resourceType: ResourceTypes.ConfigMap, name: 'cms', namespaces: ['default'] },
    );
    await operator.start();
    const deadline = Date.now() + 10_000;
    while (!seen.includes('via-light') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toContain('via-light');
    await operator.stop();
  });

  it('merges a KUBECONFIG path list as kubectl does (first current-context and first definition win), with relative certificate paths', async () => {
    const ca = file('ca.crt', server.caPem!);
    const first = file(
      'first.yaml',
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: dev',
        'contexts:',
        '- name: dev',
        '  context: {cluster: local, user: me, namespace: team-a}',
      ].join('\n'),
    );
    const second = file(
      'second.yaml',
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: other',
        'clusters:',
        `- name: local`,
        `  cluster: {server: "${server.url}", certificate-authority: ca.crt}`,
        'users:',
        `- name: me`,
        `  user: {token: "${server.tokenOf()}"}`,
        'contexts:',
        '- name: dev',
        '  context: {cluster: nowhere, user: nobody}',
      ].join('\n'),
    );
    expect(ca).toContain(dir);
    const kc = loadKubeConfig({
      env: { ...noHome, KUBECONFIG: `${first}:${join(dir, 'missing.yaml')}:${second}` },
    });
    expect(kc.getCurrentContext()).toBe('dev');
    expect(kc.getContextObject('dev')?.namespace).toBe('team-a');
    const client = KubernetesClient.fromKubeConfig(kc);
    expect(
      (await client.list(ResourceTypes.ConfigMap, { namespace: 'default' })).items.length,
    ).toBeGreaterThan(0);
    client.close();
  });

  it('an exec credential plugin is run through @kubernetes/client-node, loaded only then', async () => {
    const plugin = file(
      'plugin.mjs',
      `console.log(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: ${JSON.stringify(server.tokenOf())} } }));`,
    );
    const path = file(
      'exec.yaml',
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: exec',
        'clusters:',
        `- name: local`,
        `  cluster: {server: "${server.url}", certificate-authority-data: ${Buffer.from(server.caPem!).toString('base64')}}`,
        'users:',
        '- name: plugin',
        '  user:',
        '    exec:',
        '      apiVersion: client.authentication.k8s.io/v1',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(plugin)}]`,
        '      interactiveMode: Never',
        'contexts:',
        '- name: exec',
        '  context: {cluster: local, user: plugin}',
      ].join('\n'),
    );
    const client = KubernetesClient.fromKubeConfig(loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } }));
    expect((await client.list(ResourceTypes.Namespace)).items.length).toBeGreaterThan(0);
    client.close();
  });

  it('in a cluster: the service account token (read again as it rotates), CA and namespace', async () => {
    const sa = mkdtempSync(join(dir, 'sa-'));
    writeFileSync(join(sa, 'token'), server.tokenOf());
    writeFileSync(join(sa, 'ca.crt'), server.caPem!);
    writeFileSync(join(sa, 'namespace'), 'operators\n');
    const kc = loadKubeConfig({
      env: { ...noHome, KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(server.port) },
      serviceAccountDir: sa,
    });
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('operators');
    expect(kc.hasDynamicCredentials()).toBe(true);
    const client = KubernetesClient.fromKubeConfig(kc);
    expect((await client.list(ResourceTypes.ConfigMap, { namespace: 'default' })).items).toBeDefined();
    client.close();
  });

  it('a kubeconfig written as JSON, or as YAML flow style that starts like JSON, is read alike', async () => {
    const ca = file('flow-ca.crt', server.caPem!);
    const config = (namespace: string) => ({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'c',
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', namespace } }],
      clusters: [{ name: 'k', cluster: { server: server.url, 'certificate-authority': ca } }],
      users: [{ name: 'u', user: { token: server.tokenOf() } }],
    });
    const json = file('config.json', `  ${JSON.stringify(config('from-json'), null, 2)}\n`);
    // flow style: unquoted keys and a comment, YAML but not JSON
    const flow = file(
      'flow.yaml',
      `{apiVersion: v1, kind: Config, current-context: c, # flow style\n` +
        `contexts: [{name: c, context: {cluster: k, user: u, namespace: from-flow}}],\n` +
        `clusters: [{name: k, cluster: {server: '${server.url}', certificate-authority: '${ca}'}}],\n` +
        `users: [{name: u, user: {token: '${server.tokenOf()}'}}]}\n`,
    );
    for (const [path, namespace] of [
      [json, 'from-json'],
      [flow, 'from-flow'],
    ] as const) {
      const kc = loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } });
      expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe(namespace);
      const client = KubernetesClient.fromKubeConfig(kc);
      const list = await client.list(ResourceTypes.ConfigMap, { namespace: 'default' });
      expect(Array.isArray(list.items)).toBe(true);
      client.close();
    }
    // starts like JSON, is neither JSON nor YAML: the YAML parser's error, naming the file
    const broken = file('broken.json', '{"apiVersion": "v1", "kind": ');
    expect(() => loadKubeConfig({ env: { ...noHome, KUBECONFIG: broken } })).toThrow(
      new RegExp(`${broken} \\(from KUBECONFIG\\) is not a kubeconfig: it is not YAML`),
    );
  });

  it('a KUBECONFIG that is not a kubeconfig names the file and what to do', () => {
    const cases: Array<[string, string]> = [
      ['not-yaml.yaml', 'clusters: [unclosed'],
      ['a-list.yaml', '- 1\n- 2\n'],
      ['a-pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n'],
      ['empty-mapping.yaml', 'foo: bar\n'],
    ];
    for (const [name, text] of cases) {
      const path = file(name, text);
      const error = (() => {
        try {
          loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(KubeConfigError);
      expect((error as KubeConfigError).file).toBe(path);
      expect((error as Error).message).toContain(`${path} (from KUBECONFIG) is not a kubeconfig`);
      expect((error as Error).message).toContain('point KUBECONFIG at a kubeconfig file');
    }
    expect(() => loadKubeConfig({ env: { ...noHome, KUBECONFIG: join(dir, 'nope.yaml') } })).toThrow(
      /KUBECONFIG names no existing file .*nope\.yaml/,
    );
    expect(() => loadKubeConfig({ env: noHome })).toThrow(
      /no Kubernetes configuration found: set KUBECONFIG/,
    );
  });

  it('a certificate file the kubeconfig names but that is missing is named when the client first connects', async () => {
    const path = file(
      'bad-ca.yaml',
      [
        'current-context: c',
        'clusters:',
        `- {name: c, cluster: {server: "${server.url}", certificate-authority: missing-ca.crt}}`,
        'users:',
        '- {name: u, user: {token: t}}',
        'contexts:',
        '- {name: c, context: {cluster: c, user: u}}',
      ].join('\n'),
    );
    const client = KubernetesClient.fromKubeConfig(loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } }));
    const error = await client.list(ResourceTypes.ConfigMap).catch((e: unknown) => e);
    expect(messagesOf(error)).toContain(
      `cannot read ${join(dir, 'missing-ca.crt')} (certificate-authority in KUBECONFIG`,
    );
    client.close();
  });
});

function messagesOf(error: unknown): string {
  const out: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) out.push(e.message);
  return out.join(' | ');
}
