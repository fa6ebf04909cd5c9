// Review S12: the checks client-go's clientcmd makes on the entries a context uses
// (validation.go validateClusterInfo and validateAuthInfo) that loadKubeConfig did not make, and
// rest.InClusterConfig's handling of a missing ca.crt. Plain-HTTP tests use a scripted server on
// 127.0.0.1 and assert that nothing reached it; the in-cluster test uses a TLS server on 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesClientConfigError } from '../../client/errors.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { jsonResponse, makePki, RawServer } from '../../client/__tests__/raw-server.js';
import { json, ScriptedServer } from '../../client/__tests__/scripted-server.js';
import { loadKubeConfig } from '../kube-config.js';
import type { LoadedKubeConfig } from '../kube-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tosdk-s12-'));
const noHome = { HOME: join(dir, 'no-home') };
let counter = 0;
const file = (name: string, text: string) => {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, text);
  return path;
};
const emptyList = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] };
const pemLike = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** Every message of an error and its causes. */
function messagesOf(error: unknown): string {
  const out: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) out.push(e.message);
  return out.join(' | ');
}

describe('review S12: the entries of the current context, checked as client-go checks them', () => {
  let server: ScriptedServer;
  const clients: KubernetesClient[] = [];

  beforeAll(async () => {
    server = await ScriptedServer.start();
    server.handle((_req, res) => json(res, 200, emptyList));
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const clientOf = (kc: LoadedKubeConfig) => {
    const c = KubernetesClient.fromKubeConfig(kc, { retry: false, requestTimeoutMs: 10_000 });
    clients.push(c);
    return c;
  };
  /** A kubeconfig (JSON) of one cluster (the scripted server), one user and one context. */
  const kubeconfig = (user: Record<string, unknown>, cluster: Record<string, unknown> = {}) =>
    file(
      'config.json',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'c',
        clusters: [{ name: 'k', cluster: { server: `http://127.0.0.1:${server.port}`, ...cluster } }],
        users: [{ name: 'u', user }],
        contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
      }),
    );
  /** The error the first request with the kubeconfig at `path` fails with (no request may reach the server). */
  const failure = async (path: string) => {
    const before = server.requests.length;
    const error = await clientOf(loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } }))
      .list(ResourceTypes.ConfigMap, { namespace: 'default' })
      .catch((e: unknown) => e);
    expect(server.requests.length).toBe(before);
    expect(error).toBeInstanceOf(KubernetesClientConfigError);
    return messagesOf(error);
  };

  it('[FINDING S12-KC1] a cluster with both certificate-authority and certificate-authority-data silently uses the data; client-go refuses the configuration', async () => {
    const caFile = file('ca.crt', pemLike);
    const path = kubeconfig(
      { token: 't' },
      { 'certificate-authority': caFile, 'certificate-authority-data': b64(pemLike) },
    );
    expect(await failure(path)).toContain(
      `cluster "k" in ${path} sets both certificate-authority and certificate-authority-data; keep one of them`,
    );
  });

  it('[FINDING S12-KC2] a user with both client-certificate and client-certificate-data (or both client-key and client-key-data) silently uses the data; client-go refuses the configuration', async () => {
    const certFile = file('client.crt', pemLike);
    const keyFile = file('client.key', pemLike);
    const bothCerts = kubeconfig({
      'client-certificate': certFile,
      'client-certificate-data': b64(pemLike),
      'client-key-data': b64(pemLike),
    });
    expect(await failure(bothCerts)).toContain(
      `user "u" in ${bothCerts} sets both client-certificate and client-certificate-data; keep one of them`,
    );
    const bothKeys = kubeconfig({
      'client-certificate-data': b64(pemLike),
      'client-key': keyFile,
      'client-key-data': b64(pemLike),
    });
    expect(await failure(bothKeys)).toContain(
      `user "u" in ${bothKeys} sets both client-key and client-key-data; keep one of them`,
    );
  });

  it('[FINDING S12-KC3] a user with both an exec plugin and an auth-provider silently uses the auth-provider; client-go refuses the configuration', async () => {
    const path = kubeconfig({
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token', interactiveMode: 'Never' },
      'auth-provider': {
        name: 'oidc',
        config: { 'id-token': 'x', 'idp-issuer-url': 'https://issuer.invalid' },
      },
    });
    expect(await failure(path)).toContain(
      `user "u" in ${path} has both an exec plugin and an auth-provider; keep one of them`,
    );
  });

  it('[FINDING S12-KC4] as-groups, as-uid or as-user-extra without as sends impersonation headers without a user (a 400 from the API server); client-go refuses the configuration', async () => {
    for (const extra of [
      { 'as-groups': ['devs'] },
      { 'as-uid': '42' },
      { 'as-user-extra': { scopes: ['view'] } },
    ]) {
      const path = kubeconfig({ token: 't', ...extra });
      expect(await failure(path)).toContain(
        `user "u" in ${path} asks for impersonated groups, uid or extras without impersonating a user (as); set as, or remove ${Object.keys(extra)[0]}`,
      );
    }
    // with `as` they are sent
    const path = kubeconfig({ token: 't', as: 'jane', 'as-groups': ['devs'] });
    await clientOf(loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } })).list(ResourceTypes.ConfigMap, {
      namespace: 'default',
    });
    const sent = server.requests.at(-1)!.headers;
    expect(sent['impersonate-user']).toBe('jane');
    expect(sent['impersonate-group']).toBe('devs');
  });

  it('[FINDING S12-KC5] in a pod whose service account directory has no ca.crt, every request fails; client-go logs the missing file and verifies the API server with the system roots', async () => {
    const pki = await makePki();
    const tlsServer = await RawServer.startTls({ cert: pki.serverCert, key: pki.serverKey });
    const defaults = tls.getCACertificates('default');
    // (the warning goes to process.emitWarning, which Node prints on stderr)
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      tlsServer.handle((req) => void req.conn.write(jsonResponse(200, emptyList)));
      const sa = join(dir, `${counter++}-sa`);
      mkdirSync(sa);
      writeFileSync(join(sa, 'token'), 'raw-token');
      const kc = loadKubeConfig({
        env: {
          ...noHome,
          KUBERNETES_SERVICE_HOST: '127.0.0.1',
          KUBERNETES_SERVICE_PORT: String(tlsServer.port),
        },
        serviceAccountDir: sa,
      });
      // the system roots of this process trust the test CA (as a publicly trusted API server certificate would be)
      tls.setDefaultCACertificates([...defaults, pki.caPem]);
      const list = await clientOf(kc).list(ResourceTypes.ConfigMap, { namespace: 'default' });
      expect(list.items).toEqual([]);
      expect(tlsServer.requests).toHaveLength(1);
      expect(emitWarning.mock.calls.map((call) => String(call[0])).join('\n')).toContain(
        `the service account CA ${join(sa, 'ca.crt')} is missing`,
      );
    } finally {
      tls.setDefaultCACertificates(defaults);
      emitWarning.mockRestore();
      await tlsServer.stop();
    }
  });
});
