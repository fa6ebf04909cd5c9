// Review S11: how loadKubeConfig finds, merges and checks a configuration, against client-go's
// clientcmd (loader.go ClientConfigLoadingRules.Load, merged_client_builder.go
// DeferredLoadingClientConfig, client_config.go inClusterClientConfig), rest.InClusterConfig and
// the transport (token_source.go, transport.go TLSConfigFor). Plain-HTTP tests use a scripted
// server on 127.0.0.1 and assert the headers it received or the error the caller got.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesClientConfigError } from '../../client/errors.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { makePki, RawServer, jsonResponse } from '../../client/__tests__/raw-server.js';
import { json, ScriptedServer, status } from '../../client/__tests__/scripted-server.js';
import type { RecordedRequest } from '../../client/__tests__/scripted-server.js';
import { KubeConfigError, loadKubeConfig } from '../kube-config.js';
import type { LoadedKubeConfig } from '../kube-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tosdk-s11-'));
const noHome = { HOME: join(dir, 'no-home') };
let counter = 0;
const file = (name: string, text: string) => {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, text);
  return path;
};
const yaml = (lines: string[]) => `${lines.join('\n')}\n`;
const emptyList = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] };

/** The error a call threw (or undefined). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Every message of an error and its causes. */
function messagesOf(error: unknown): string {
  const out: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) out.push(e.message);
  return out.join(' | ');
}

/** A service account directory (token, namespace) as the kubelet mounts it. */
function serviceAccount(files: Record<string, string>): string {
  const sa = join(dir, `${counter++}-sa`);
  mkdirSync(sa);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(sa, name), text);
  return sa;
}

describe('review S11: loading, merging and checking a kubeconfig', () => {
  let server: ScriptedServer;
  const clients: KubernetesClient[] = [];
  let accepted = new Set<string>();
  const bearer = (req: RecordedRequest) => String(req.headers.authorization ?? '').replace(/^Bearer /, '');

  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  beforeEach(() => {
    server.requests.length = 0;
    accepted = new Set();
    server.handle((req, res) => {
      if (!accepted.has(bearer(req))) json(res, 401, status(401, 'Unauthorized'));
      else json(res, 200, emptyList);
    });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const serverUrl = () => `http://127.0.0.1:${server.port}`;
  const clientOf = (kc: LoadedKubeConfig, authRefreshMs?: number) => {
    const c = KubernetesClient.fromKubeConfig(kc, { retry: false, requestTimeoutMs: 10_000, authRefreshMs });
    clients.push(c);
    return c;
  };
  const list = (c: KubernetesClient) => c.list(ResourceTypes.ConfigMap, { namespace: 'default' });
  /** A kubeconfig of one cluster (this server), one user and one context. */
  const kubeconfig = (user: string[], cluster: string[] = []) =>
    file(
      'config.yaml',
      yaml([
        'apiVersion: v1',
        'kind: Config',
        'current-context: c',
        'clusters:',
        '- name: k',
        '  cluster:',
        `    server: "${serverUrl()}"`,
        ...cluster.map((l) => `    ${l}`),
        'users:',
        '- name: u',
        '  user:',
        ...user.map((l) => `    ${l}`),
        'contexts:',
        '- {name: c, context: {cluster: k, user: u}}',
      ]),
    );

  it('[FINDING S11-KC1] with KUBECONFIG naming only files that do not exist, loading in a pod throws instead of using the in-cluster service account', () => {
    const sa = serviceAccount({ token: 'sa-token', namespace: 'operators' });
    const env = {
      ...noHome,
      KUBECONFIG: `${join(dir, 'missing-a.yaml')}:${join(dir, 'missing-b.yaml')}`,
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
    };
    const kc = loadKubeConfig({ env, serviceAccountDir: sa });
    expect(kc.getCurrentCluster()?.server).toBe('https://10.96.0.1:443');
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('operators');
    // outside a cluster it still says which files are missing and what to do
    const error = thrown(() =>
      loadKubeConfig({ env: { ...noHome, KUBECONFIG: env.KUBECONFIG }, serviceAccountDir: sa }),
    );
    expect(error).toBeInstanceOf(KubeConfigError);
    expect((error as Error).message).toContain('missing-a.yaml');
  });

  it('[FINDING S11-KC2] a KUBECONFIG list whose files hold only users, only current-context, or nothing (as kubie/kubeswitch and credential helpers write them) is refused as "not a kubeconfig"', async () => {
    accepted.add('from-users-file');
    const current = file('current.yaml', yaml(['current-context: c']));
    const empty = file('empty.yaml', '');
    const users = file(
      'users.yaml',
      yaml(['apiVersion: v1', 'kind: Config', 'users:', '- {name: u, user: {token: from-users-file}}']),
    );
    const clusters = file(
      'clusters.yaml',
      yaml([
        'apiVersion: v1',
        'kind: Config',
        'current-context: other',
        'clusters:',
        `- {name: k, cluster: {server: "${serverUrl()}"}}`,
        'contexts:',
        '- {name: c, context: {cluster: k, user: u, namespace: team-a}}',
        '- {name: other, context: {cluster: k, user: nobody}}',
      ]),
    );
    const kc = loadKubeConfig({
      env: { ...noHome, KUBECONFIG: [current, empty, users, clusters].join(':') },
    });
    expect(kc.getCurrentContext()).toBe('c');
    expect(kc.getContextObject('c')?.namespace).toBe('team-a');
    await list(clientOf(kc));
    expect(server.requests.map(bearer)).toEqual(['from-users-file']);
    // an empty ~/.kube/config in a pod is no configuration: the service account is used
    const home = join(dir, `${counter++}-home`);
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), '');
    const inPod = loadKubeConfig({
      env: { HOME: home, KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' },
      serviceAccountDir: serviceAccount({ token: 't' }),
    });
    expect(inPod.getCurrentCluster()?.server).toBe('https://10.96.0.1:443');
  });

  it('[FINDING S11-KC3] a tokenFile that is empty sends requests with no credentials at all (anonymous) instead of failing', async () => {
    const token = file('empty-token', '\n');
    const c = clientOf(
      loadKubeConfig({ env: { ...noHome, KUBECONFIG: kubeconfig([`tokenFile: ${token}`]) } }),
    );
    const error = await list(c).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesClientConfigError);
    expect(messagesOf(error)).toContain(`the token file ${token} (tokenFile in KUBECONFIG`);
    expect(messagesOf(error)).toContain('is empty; write the bearer token into it');
    expect(server.requests).toHaveLength(0);
    // in a pod: rest.InClusterConfig's token source refuses an empty token file the same way
    const sa = serviceAccount({ token: '', 'ca.crt': 'unused' });
    const inPod = clientOf(
      loadKubeConfig({
        env: { ...noHome, KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '1' },
        serviceAccountDir: sa,
      }),
    );
    const inPodError = await list(inPod).catch((e: unknown) => e);
    expect(inPodError).toBeInstanceOf(KubernetesClientConfigError);
    expect(messagesOf(inPodError)).toContain(`the token file ${join(sa, 'token')} (tokenFile in`);
  });

  it('[FINDING S11-KC4] a tokenFile read once, then momentarily empty or missing while it is rewritten, fails requests (client-go keeps the last token)', async () => {
    accepted = new Set(['t1', 't2']);
    const token = file('token', 't1');
    // authRefreshMs 0: the file is read again for every request
    const c = clientOf(
      loadKubeConfig({ env: { ...noHome, KUBECONFIG: kubeconfig([`tokenFile: ${token}`]) } }),
      0,
    );
    await list(c);
    writeFileSync(token, '');
    await list(c);
    rmSync(token);
    await list(c);
    writeFileSync(token, 't2');
    await list(c);
    expect(server.requests.map(bearer)).toEqual(['t1', 't1', 't1', 't2']);
  });

  it('[FINDING S11-KC5] certificate-authority-data together with insecure-skip-tls-verify: the server certificate is not checked at all, where client-go refuses the configuration', async () => {
    const pki = await makePki([{ type: 'dns', value: 'other.example' }]);
    const tlsServer = await RawServer.startTls({ cert: pki.serverCert, key: pki.serverKey });
    try {
      tlsServer.handle((req) => void req.conn.write(jsonResponse(200, emptyList)));
      const c = clientOf(tlsServer.kubeConfig({ ca: pki.caPem, insecure: true }));
      const error = await list(c).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesClientConfigError);
      expect(messagesOf(error)).toContain(
        'cluster "raw" sets both insecure-skip-tls-verify and a certificate authority',
      );
      expect(tlsServer.requests).toHaveLength(0);
    } finally {
      await tlsServer.stop();
    }
  });

  it('[FINDING S11-KC6] certificate-authority-data or client-key-data that is not base64 (a PEM pasted as is) is decoded to garbage silently; the error comes later as a TLS failure naming neither field nor file', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIBdjCCAR2gAwIBAgIUQ\n-----END CERTIFICATE-----\n';
    const ca = kubeconfig(['token: t'], [`certificate-authority-data: ${JSON.stringify(pem)}`]);
    const caError = thrown(() => loadKubeConfig({ env: { ...noHome, KUBECONFIG: ca } }));
    expect(caError).toBeInstanceOf(KubeConfigError);
    expect((caError as KubeConfigError).file).toBe(ca);
    expect((caError as Error).message).toContain(
      `certificate-authority-data of cluster "k" in ${ca} is not base64`,
    );
    const key = kubeconfig([
      `client-certificate-data: ${Buffer.from(pem).toString('base64')}`,
      'client-key-data: "not base64!"',
    ]);
    expect(() => loadKubeConfig({ env: { ...noHome, KUBECONFIG: key } })).toThrow(
      `client-key-data of user "u" in ${key} is not base64`,
    );
  });

  it('[FINDING S11-KC7] in a pod, POD_NAMESPACE (the downward API) is not the default namespace; client-go reads it before the service account namespace file', () => {
    const env = { ...noHome, KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const withoutFile = loadKubeConfig({
      env: { ...env, POD_NAMESPACE: 'from-downward-api' },
      serviceAccountDir: serviceAccount({ token: 't' }),
    });
    expect(withoutFile.getContextObject(withoutFile.getCurrentContext())?.namespace).toBe(
      'from-downward-api',
    );
    const withFile = loadKubeConfig({
      env: { ...env, POD_NAMESPACE: 'from-downward-api' },
      serviceAccountDir: serviceAccount({ token: 't', namespace: 'from-file' }),
    });
    expect(withFile.getContextObject(withFile.getCurrentContext())?.namespace).toBe('from-downward-api');
  });

  it('[FINDING S11-KC8] a proxy-url without a scheme or with one client-go does not support (proxy.corp:3128, ftp://) is not refused: requests go elsewhere and fail as a connection error naming the API server', async () => {
    for (const proxyUrl of ['proxy.corp:3128', 'ftp://127.0.0.1:1', 'socks4://127.0.0.1:1']) {
      const path = kubeconfig(['token: t'], [`proxy-url: "${proxyUrl}"`]);
      const error = await list(clientOf(loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } }))).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(KubernetesClientConfigError);
      expect(messagesOf(error)).toContain(
        `proxy-url "${proxyUrl}" of cluster "k" in ${path} is not an http, https or socks5 URL`,
      );
    }
    expect(server.requests).toHaveLength(0);
  });

  it('[FINDING S11-KC9] a user with client-certificate(-data) but no client-key(-data) fails as a TLS handshake error that names neither the user nor the missing key', async () => {
    const pki = await makePki();
    const tlsServer = await RawServer.startTls({
      cert: pki.serverCert,
      key: pki.serverKey,
      clientCa: pki.caPem,
    });
    try {
      tlsServer.handle((req) => void req.conn.write(jsonResponse(200, emptyList)));
      const c = clientOf(tlsServer.kubeConfig({ ca: pki.caPem, token: null, clientCert: pki.clientCert }));
      const error = await list(c).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesClientConfigError);
      expect(messagesOf(error)).toContain(
        'user "raw" has a client certificate (client-certificate-data) but no client-key or client-key-data',
      );
      expect(tlsServer.connections).toHaveLength(0);
    } finally {
      await tlsServer.stop();
    }
  });

  it('[FINDING S11-KC10] a user with both a token and a username/password silently authenticates with basic auth; client-go refuses more than one authentication method', async () => {
    accepted.add('t');
    const path = kubeconfig(['token: t', 'username: admin', 'password: secret']);
    const error = await list(clientOf(loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } }))).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubernetesClientConfigError);
    expect(messagesOf(error)).toContain(
      `user "u" in ${path} has more than one authentication method (token and username/password)`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('[FINDING S11-KC11] a file defining one cluster name twice (an entry appended by hand) silently uses the first; client-go refuses the file (duplicate name in list)', () => {
    const path = file(
      'duplicate.yaml',
      yaml([
        'current-context: c',
        'clusters:',
        '- {name: k, cluster: {server: "https://old.example:6443"}}',
        `- {name: k, cluster: {server: "${serverUrl()}"}}`,
        'users:',
        '- {name: u, user: {token: t}}',
        'contexts:',
        '- {name: c, context: {cluster: k, user: u}}',
      ]),
    );
    const error = thrown(() => loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } }));
    expect(error).toBeInstanceOf(KubeConfigError);
    expect((error as KubeConfigError).file).toBe(path);
    expect((error as Error).message).toContain(`${path} defines cluster "k" twice`);
  });

  it('[FINDING S11-KC12] a cluster with no server, or a server without its scheme (10.0.0.1:6443), fails with "invalid server URL" and no word on what to write', () => {
    for (const server of ['', '127.0.0.1:6443']) {
      const path = file(
        'no-scheme.yaml',
        yaml([
          'current-context: c',
          'clusters:',
          `- {name: k, cluster: {server: "${server}"}}`,
          'users:',
          '- {name: u, user: {token: t}}',
          'contexts:',
          '- {name: c, context: {cluster: k, user: u}}',
        ]),
      );
      const error = thrown(() =>
        KubernetesClient.fromKubeConfig(loadKubeConfig({ env: { ...noHome, KUBECONFIG: path } })),
      );
      expect(error).toBeInstanceOf(KubernetesClientConfigError);
      expect((error as Error).message).toContain(
        'set it to the URL of the API server with its scheme, e.g. https://',
      );
    }
  });

  it('[FINDING S11-KC13] HTTPS_PROXY/NO_PROXY are ignored: an operator run where the API server is reachable only through the proxy (as kubectl reaches it) cannot connect', async () => {
    const pki = await makePki([{ type: 'dns', value: 'api.example.test' }]);
    const tlsServer = await RawServer.startTls({ cert: pki.serverCert, key: pki.serverKey });
    // a CONNECT proxy that reaches every host on the test server (the name resolves nowhere else)
    const tunnels: string[] = [];
    const sockets = new Set<Socket>();
    const proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const upstream = connect(tlsServer.port, '127.0.0.1', () => {
        sockets.add(socket).add(upstream);
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket).pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      tlsServer.handle((req) => void req.conn.write(jsonResponse(200, emptyList)));
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const path = tlsServer.kubeConfigFile({ host: 'api.example.test', ca: pki.caPem }).path;
      const load = (env: Record<string, string>) =>
        loadKubeConfig({ env: { ...noHome, KUBECONFIG: path, ...env } });
      const kc = load({ HTTPS_PROXY: proxyUrl, NO_PROXY: 'localhost,10.0.0.0/8,.svc' });
      expect(kc.getCurrentCluster()?.proxyUrl).toBe(proxyUrl);
      await list(clientOf(kc));
      expect(tunnels).toEqual([`api.example.test:${tlsServer.port}`]);
      expect(tlsServer.requests).toHaveLength(1);
      // NO_PROXY as Go reads it: a domain with its subdomains, a leading dot, a port, "*"; and
      // lower-case names, and HTTP_PROXY only for http: servers
      for (const noProxy of ['example.test', '.example.test', `api.example.test:${tlsServer.port}`, '*']) {
        expect(
          load({ HTTPS_PROXY: proxyUrl, NO_PROXY: noProxy }).getCurrentCluster()?.proxyUrl,
        ).toBeUndefined();
      }
      expect(
        load({ https_proxy: proxyUrl, no_proxy: 'api.example.test:1' }).getCurrentCluster()?.proxyUrl,
      ).toBe(proxyUrl);
      expect(load({ HTTP_PROXY: proxyUrl }).getCurrentCluster()?.proxyUrl).toBeUndefined();
      // a host:port is taken as http://host:port; a value that is no URL at all is ignored (as Go)
      expect(load({ HTTPS_PROXY: 'proxy.corp:3128' }).getCurrentCluster()?.proxyUrl).toBe(
        'http://proxy.corp:3128',
      );
      expect(load({ HTTPS_PROXY: '[bad' }).getCurrentCluster()?.proxyUrl).toBeUndefined();
      // a proxy-url of the kubeconfig wins over the environment
      const own = kubeconfig(['token: t'], ['proxy-url: "http://127.0.0.1:1"']);
      const withOwn = loadKubeConfig({ env: { ...noHome, KUBECONFIG: own, HTTP_PROXY: proxyUrl } });
      expect(withOwn.getCurrentCluster()?.proxyUrl).toBe('http://127.0.0.1:1');
      // IP addresses and CIDR ranges in NO_PROXY, for a server given by address
      const byAddress = file(
        'by-address.yaml',
        yaml([
          'current-context: c',
          'clusters: [{name: k, cluster: {server: "https://10.1.2.3:6443"}}]',
          'contexts: [{name: c, context: {cluster: k}}]',
        ]),
      );
      const viaProxy = (noProxy: string) =>
        loadKubeConfig({
          env: { ...noHome, KUBECONFIG: byAddress, HTTPS_PROXY: proxyUrl, NO_PROXY: noProxy },
        }).getCurrentCluster()?.proxyUrl;
      expect(viaProxy('10.0.0.0/8')).toBeUndefined();
      expect(viaProxy('10.1.2.3')).toBeUndefined();
      expect(viaProxy('10.1.2.3:6443')).toBeUndefined();
      expect(viaProxy('10.1.2.4,192.168.0.0/16,10.1.2.3:443')).toBe(proxyUrl);
      // never for loopback servers (as Go's httpproxy)
      const loopback = kubeconfig(['token: t']);
      expect(
        loadKubeConfig({ env: { ...noHome, KUBECONFIG: loopback, HTTP_PROXY: proxyUrl } }).getCurrentCluster()
          ?.proxyUrl,
      ).toBeUndefined();
    } finally {
      for (const socket of sockets) socket.destroy();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await tlsServer.stop();
    }
  });
});
