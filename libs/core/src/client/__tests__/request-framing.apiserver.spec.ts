// What the client's lean request path (issue 15 §2: headers sent as a prepared name/value list, one
// agent pool name per server, in-flight requests tracked in a set) must keep: the exact headers of
// every request, TLS to a server named by host name (SNI) as well as by IP address, and close()
// ending requests still waiting for a socket.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource } from '../../api/resource-type.js';
import { loadKubeConfig } from '../../config/kube-config.js';
import { KubernetesClientClosedError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import { json, ScriptedServer, waitFor } from './scripted-server.js';

type Widget = CustomResource<{ size: number; label?: string }>;
const Widget = defineResource<Widget>({ group: 'example.tosdk.io', version: 'v1', kind: 'Widget' });
const id = new ResourceID('w1', 'ns1');

describe('request framing', () => {
  let server: ScriptedServer;

  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('sends each header exactly once: Host, User-Agent, Authorization, Accept, and for a body Content-Type and its byte length', async () => {
    server.requests.length = 0;
    server.handle((_req, res) => json(res, 200, { apiVersion: 'example.tosdk.io/v1', kind: 'Widget' }));
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig('secret-token'), {
      userAgent: 'framing-test/1',
    });
    try {
      // a multi-byte character: Content-Length counts bytes, not characters
      await client.mergePatch(Widget, id, { spec: { label: 'größe ✓' } });
      await client.get(Widget, id);
      await client.list(Widget, { namespace: 'ns1', metadataOnly: true });
    } finally {
      client.close();
    }
    expect(server.requests).toHaveLength(3);
    const [patch, get, list] = server.requests;
    expect(patch.headers).toEqual({
      host: `127.0.0.1:${server.port}`,
      'user-agent': 'framing-test/1',
      authorization: 'Bearer secret-token',
      accept: 'application/json',
      'content-type': 'application/merge-patch+json',
      'content-length': String(Buffer.byteLength(patch.body)),
      connection: 'keep-alive',
    });
    expect(JSON.parse(patch.body)).toEqual({ spec: { label: 'größe ✓' } });
    expect(Buffer.byteLength(patch.body)).toBeGreaterThan(patch.body.length);
    for (const r of [get, list]) {
      expect(r.headers['content-type']).toBeUndefined();
      expect(r.headers['content-length']).toBeUndefined();
      expect(r.headers.host).toBe(`127.0.0.1:${server.port}`);
      expect(r.headers.authorization).toBe('Bearer secret-token');
    }
    expect(get.headers.accept).toBe('application/json');
    expect(list.headers.accept).toMatch(/^application\/json;as=PartialObjectMetadataList;/);
  });

  it('close() also ends requests still queued for a socket (none is sent afterwards)', async () => {
    server.requests.length = 0;
    server.handle(() => {
      // never answered
    });
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(), { maxSockets: 1 });
    const first = client.get(Widget, id).catch((e: unknown) => e);
    const queued = client.get(Widget, new ResourceID('w2', 'ns1')).catch((e: unknown) => e);
    await waitFor(() => server.requests.length === 1, 5_000, 'the first request');
    client.close();
    expect(await first).toBeInstanceOf(KubernetesClientClosedError);
    expect(await queued).toBeInstanceOf(KubernetesClientClosedError);
    await waitFor(() => server.openResponses === 0, 5_000, 'the connection to end');
    expect(server.requests.map((r) => r.path)).toEqual([
      '/apis/example.tosdk.io/v1/namespaces/ns1/widgets/w1',
    ]);
  });
});

describe('TLS by host name and by IP address', () => {
  let apiServer: KubeApiServer;
  let dir: string;

  beforeAll(async () => {
    apiServer = await KubeApiServer.start({ port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'tosdk-framing-'));
  });
  afterAll(async () => {
    await apiServer.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the server certificate for 127.0.0.1 and for localhost (sent as the TLS server name), many requests on one pool', async () => {
    const byIp = join(dir, 'by-ip');
    await apiServer.writeKubeconfig(byIp);
    const byName = join(dir, 'by-name');
    const text = readFileSync(byIp, 'utf8');
    expect(text).toContain('https://127.0.0.1:');
    writeFileSync(byName, text.replace('https://127.0.0.1:', 'https://localhost:'));
    for (const path of [byIp, byName]) {
      const client = KubernetesClient.fromKubeConfig(loadKubeConfig({ env: { KUBECONFIG: path } }));
      try {
        const answers = await Promise.all(
          Array.from({ length: 20 }, () => client.list(ResourceTypes.Namespace)),
        );
        for (const a of answers) expect(a.items.some((n) => n.metadata?.name === 'default')).toBe(true);
      } finally {
        client.close();
      }
    }
  });
});
