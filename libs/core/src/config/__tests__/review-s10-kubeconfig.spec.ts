// Review S10: how a user's kubeconfig becomes authenticated requests, checked against what a
// kubectl/client-go user expects (clientcmd's loading and merging, exec credential plugins,
// impersonation, token files). Every test runs against a scripted plain-HTTP server on 127.0.0.1
// and asserts the headers the server received or the error the caller got.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { json, ScriptedServer, status } from '../../client/__tests__/scripted-server.js';
import type { RecordedRequest } from '../../client/__tests__/scripted-server.js';
import { loadKubeConfig } from '../kube-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tosdk-s10-'));
const noHome = { HOME: join(dir, 'no-home') };
let counter = 0;
const file = (name: string, text: string) => {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, text);
  return path;
};
const yaml = (lines: string[]) => `${lines.join('\n')}\n`;
const emptyList = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] };

describe('review S10: kubeconfig to authenticated requests', () => {
  let server: ScriptedServer;
  const clients: KubernetesClient[] = [];
  /** Bearer tokens the server accepts; any other answers 401. */
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

  const client = (kubeconfig: string) => {
    const c = KubernetesClient.fromKubeConfig(
      loadKubeConfig({ env: { ...noHome, KUBECONFIG: kubeconfig } }),
      {
        retry: false,
        requestTimeoutMs: 10_000,
      },
    );
    clients.push(c);
    return c;
  };
  const list = (c: KubernetesClient) => c.list(ResourceTypes.ConfigMap, { namespace: 'default' });
  const serverUrl = () => `http://127.0.0.1:${server.port}`;
  /** A Node script printing an ExecCredential; `body` is JS computing `token` (and may read env). */
  const plugin = (body: string) =>
    file(
      'plugin.mjs',
      `${body}\nconsole.log(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } }));\n`,
    );

  it('[FINDING S10-KC1] with KUBECONFIG=a:b, an exec user defined in b after a cluster name a also defines sends no credentials', async () => {
    accepted.add('from-exec');
    const a = file(
      'a.yaml',
      yaml([
        'apiVersion: v1',
        'kind: Config',
        'current-context: work',
        'clusters:',
        `- {name: shared, cluster: {server: "${serverUrl()}", insecure-skip-tls-verify: true}}`,
        'contexts:',
        '- {name: work, context: {cluster: shared, user: exec-user}}',
      ]),
    );
    const b = file(
      'b.yaml',
      yaml([
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- {name: shared, cluster: {server: "https://elsewhere.invalid"}}',
        'users:',
        '- name: exec-user',
        '  user:',
        '    exec:',
        '      apiVersion: client.authentication.k8s.io/v1',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(plugin("const token = 'from-exec';"))}]`,
        '      interactiveMode: Never',
      ]),
    );
    await list(client(`${a}:${b}`));
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer from-exec']);
  });

  it('[FINDING S10-KC2] a user with `as`/`as-groups`/`as-uid`/`as-user-extra` sends no Impersonate-* headers, so requests run as the impersonator itself', async () => {
    accepted.add('admin-token');
    const path = file(
      'impersonate.yaml',
      yaml([
        'apiVersion: v1',
        'kind: Config',
        'current-context: c',
        'clusters:',
        `- {name: k, cluster: {server: "${serverUrl()}"}}`,
        'users:',
        '- name: u',
        '  user:',
        '    token: admin-token',
        '    as: operator-sa',
        '    as-uid: "1234"',
        '    as-groups: [team-a, team-b]',
        '    as-user-extra: {scopes: [view, edit]}',
        'contexts:',
        '- {name: c, context: {cluster: k, user: u}}',
      ]),
    );
    await list(client(path));
    const [req] = server.requests;
    expect(req.headers['impersonate-user']).toBe('operator-sa');
    expect(req.headers['impersonate-uid']).toBe('1234');
    // one header line per group: the API server takes each line as one group ("team-a, team-b" would be one group)
    const raw = req.rawHeaders;
    const groups = raw.filter((_, i) => i % 2 === 1 && raw[i - 1].toLowerCase() === 'impersonate-group');
    expect(groups).toEqual(['team-a', 'team-b']);
    const scopes = raw.filter(
      (_, i) => i % 2 === 1 && raw[i - 1].toLowerCase() === 'impersonate-extra-scopes',
    );
    expect(scopes).toEqual(['view', 'edit']);
  });

  /** A kubeconfig for the scripted server whose user runs `exec` (YAML lines under `exec:`). */
  const execConfig = (execLines: string[], clusterExtra: string[] = [], name = 'exec.yaml') =>
    file(
      name,
      yaml([
        'apiVersion: v1',
        'kind: Config',
        'current-context: c',
        'clusters:',
        '- name: k',
        '  cluster:',
        `    server: "${serverUrl()}"`,
        // plain HTTP: client-node wants this for an http: server
        '    insecure-skip-tls-verify: true',
        ...clusterExtra.map((l) => `    ${l}`),
        'users:',
        '- name: plugin-user',
        '  user:',
        '    exec:',
        '      apiVersion: client.authentication.k8s.io/v1',
        ...execLines.map((l) => `      ${l}`),
        'contexts:',
        '- {name: c, context: {cluster: k, user: plugin-user}}',
      ]),
    );
  const nodePlugin = (body: string) => [
    `command: ${JSON.stringify(process.execPath)}`,
    `args: [${JSON.stringify(plugin(body))}]`,
  ];
  const messagesOf = (error: unknown): string => {
    const out: string[] = [];
    for (let e = error; e instanceof Error; e = e.cause) out.push(e.message);
    return out.join(' | ');
  };
  /** Rejects when `promise` has not settled within `ms` (a hang is the failure being shown). */
  const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
    Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref(),
      ),
    ]);

  it('[FINDING S10-KC3] an exec credential the server stops accepting (no expirationTimestamp) is never fetched again: every request fails with 401', async () => {
    const count = join(dir, `count-${counter++}`);
    writeFileSync(count, '0');
    const path = execConfig([
      ...nodePlugin(
        `import { readFileSync, writeFileSync } from 'node:fs';\n` +
          `const n = Number(readFileSync(${JSON.stringify(count)}, 'utf8')) + 1;\n` +
          `writeFileSync(${JSON.stringify(count)}, String(n));\n` +
          'const token = `t${n}`;',
      ),
      'interactiveMode: Never',
    ]);
    const c = client(path);
    accepted.add('t1');
    await list(c);
    // the token is revoked (or expired early): client-go runs the plugin again after a 401
    accepted = new Set(['t2']);
    await list(c);
    expect(server.requests.map(bearer)).toEqual(['t1', 't1', 't2']);
  });

  it('[FINDING S10-KC4] an exec plugin gets no KUBERNETES_EXEC_INFO, so provideClusterInfo (server, CA, the exec extension of the cluster) never reaches it', async () => {
    const path = execConfig(
      [
        ...nodePlugin(
          "const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO ?? 'null');\n" +
            'const token = encodeURIComponent(JSON.stringify({ info, extra: process.env.EXTRA ?? null }));',
        ),
        'interactiveMode: Never',
        'provideClusterInfo: true',
        'env: [{name: EXTRA, value: from-env}]',
      ],
      ['extensions:', '- name: client.authentication.k8s.io/exec', '  extension: {audience: my-cluster}'],
    );
    server.handle((_req, res) => json(res, 200, emptyList));
    await list(client(path));
    const seen = JSON.parse(decodeURIComponent(bearer(server.requests[0]))) as {
      info: {
        apiVersion: string;
        kind: string;
        spec: { interactive?: boolean; cluster?: Record<string, unknown> };
      } | null;
      extra: string | null;
    };
    expect(seen.extra).toBe('from-env');
    expect(seen.info).toMatchObject({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: {
          server: serverUrl(),
          'insecure-skip-tls-verify': true,
          config: { audience: 'my-cluster' },
        },
      },
    });
  });

  it('[FINDING S10-KC5] an exec command given relative to the kubeconfig (`./bin/get-token`) is looked for in the working directory instead', async () => {
    const home = join(dir, `relative-${counter++}`);
    mkdirSync(join(home, 'bin'), { recursive: true });
    const script = join(home, 'bin', 'get-token');
    writeFileSync(
      script,
      `#!${process.execPath}\nconsole.log(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'relative' } }));\n`,
    );
    chmodSync(script, 0o755);
    const path = join(home, 'config');
    writeFileSync(
      path,
      yaml([
        'current-context: c',
        'clusters:',
        `- {name: k, cluster: {server: "${serverUrl()}", insecure-skip-tls-verify: true}}`,
        'users:',
        '- {name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ./bin/get-token, interactiveMode: Never}}}',
        'contexts:',
        '- {name: c, context: {cluster: k, user: u}}',
      ]),
    );
    accepted.add('relative');
    await list(client(path));
    expect(server.requests.map(bearer)).toEqual(['relative']);
  });

  it('[FINDING S10-KC6] an exec plugin that is missing or fails gives an error without the command, its exit code or the installHint', async () => {
    const missing = join(dir, 'no-such-dir', 'cloud-get-token');
    const notFound = await list(
      client(
        execConfig([
          `command: ${JSON.stringify(missing)}`,
          'interactiveMode: Never',
          'installHint: install cloud-get-token from https://example.com/cli',
        ]),
      ),
    ).catch((e: unknown) => e);
    expect(messagesOf(notFound)).toContain(missing);
    expect(messagesOf(notFound)).toContain('install cloud-get-token from https://example.com/cli');
    expect(messagesOf(notFound)).toContain('plugin-user');
    const failing = await list(
      client(
        execConfig([
          ...nodePlugin(
            "console.error('token expired, run cloud login'); process.exit(3);\nconst token = '';",
          ),
          'interactiveMode: Never',
        ]),
      ),
    ).catch((e: unknown) => e);
    expect(messagesOf(failing)).toContain(process.execPath);
    expect(messagesOf(failing)).toContain('exit code 3');
    expect(messagesOf(failing)).toContain('token expired, run cloud login');
    expect(server.requests).toHaveLength(0);
  });

  it('[FINDING S10-KC7] an exec plugin with interactiveMode Always that waits for input hangs every request when stdin is not a terminal', async () => {
    const path = execConfig([
      ...nodePlugin(
        "await new Promise((resolve) => process.stdin.once('data', resolve));\nconst token = 'typed';",
      ),
      'interactiveMode: Always',
    ]);
    const error = await within(list(client(path)), 5_000, 'the request').catch((e: unknown) => e);
    expect(messagesOf(error)).toMatch(/interactiveMode.*Always.*terminal/);
    expect(server.requests).toHaveLength(0);
  });

  it("[FINDING S10-KC10] a user with both token and tokenFile keeps sending the static token after the file rotated (client-go sends the file's)", async () => {
    const tokenFile = join(dir, `both-${counter++}`);
    writeFileSync(tokenFile, 'file-1\n');
    const path = file(
      'both.yaml',
      yaml([
        'current-context: c',
        'clusters:',
        `- {name: k, cluster: {server: "${serverUrl()}"}}`,
        'users:',
        `- {name: u, user: {token: static, tokenFile: ${JSON.stringify(tokenFile)}}}`,
        'contexts:',
        '- {name: c, context: {cluster: k, user: u}}',
      ]),
    );
    const c = client(path);
    accepted = new Set(['file-1']);
    await list(c);
    writeFileSync(tokenFile, 'file-2\n');
    accepted = new Set(['file-2']);
    // the 401 makes the client read the credentials again
    await list(c);
    expect(server.requests.map(bearer)).toEqual(['file-1', 'file-1', 'file-2']);
  });
});
