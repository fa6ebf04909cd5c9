// Review S10: a watch answered 401 after the credentials rotated. client-go's credential layers
// (exec plugins, token files) act on a 401 of any request, a watch included; tosdk's client did so
// for ordinary requests only, so an informer's watch kept failing with the old token until the
// credentials were due for their periodic refresh (authRefreshMs, a minute by default).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceTypes } from '../../api/builtin-types.js';
import { loadKubeConfig } from '../../config/kube-config.js';
import { KubernetesClient } from '../kubernetes-client.js';
import { json, ScriptedServer, status } from './scripted-server.js';
import type { RecordedRequest } from './scripted-server.js';

const dir = mkdtempSync(join(tmpdir(), 'tosdk-s10-watch-'));

describe('review S10: a watch answered 401', () => {
  let server: ScriptedServer;
  let client: KubernetesClient | undefined;
  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(() => client?.close());
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('[FINDING S10-KC8] a watch answered 401 after the token file rotated fails with the old token instead of reading the new one', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'old-token\n');
    const kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        'current-context': 'c',
        clusters: [{ name: 'k', cluster: { server: `http://127.0.0.1:${server.port}` } }],
        users: [{ name: 'u', user: { tokenFile } }],
        contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
      }),
    );
    let accepted = 'old-token';
    const bearer = (req: RecordedRequest) => String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    server.handle((req, res) => {
      if (bearer(req) !== accepted) return json(res, 401, status(401, 'Unauthorized'));
      if (req.query.get('watch') !== 'true') {
        return json(res, 200, {
          kind: 'ConfigMapList',
          apiVersion: 'v1',
          metadata: { resourceVersion: '1' },
          items: [],
        });
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const cm = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' },
      };
      res.end(`${JSON.stringify({ type: 'ADDED', object: cm })}\n`);
    });
    client = KubernetesClient.fromKubeConfig(
      loadKubeConfig({ env: { KUBECONFIG: kubeconfig, HOME: join(dir, 'no-home') } }),
      { retry: false, requestTimeoutMs: 10_000 },
    );
    await client.list(ResourceTypes.ConfigMap, { namespace: 'ns' });
    // the kubelet (or a sidecar) rotates the token; the server stops accepting the old one
    writeFileSync(tokenFile, 'new-token\n');
    accepted = 'new-token';
    const names: string[] = [];
    for await (const event of client.watch(ResourceTypes.ConfigMap, {
      namespace: 'ns',
      resourceVersion: '1',
    })) {
      names.push(event.type === 'ERROR' ? 'ERROR' : (event.object.metadata?.name ?? ''));
    }
    expect(names).toEqual(['a']);
    expect(server.requests.map(bearer)).toEqual(['old-token', 'old-token', 'new-token']);
  });
});
