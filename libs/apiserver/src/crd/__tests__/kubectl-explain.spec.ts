import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildOpenApiV3, compileCrd } from '../index.js';
import type { JsonObject } from '../../types.js';
import { v0, webPageCrd } from './fixtures.js';

const KUBECTL = '/usr/bin/kubectl';

/** Discovery for one CRD plus the OpenAPI v3 documents under test; nothing else. */
function startServer(): Promise<Server> {
  const crd = compileCrd(
    webPageCrd((c) => {
      v0(c).schema!.openAPIV3Schema.properties!.spec.properties!.template = {
        type: 'object',
        description: 'An embedded Pod template.',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      };
    }),
  );
  const openapi = buildOpenApiV3([crd]);
  const routes: Record<string, JsonObject> = {
    '/version': { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' },
    '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] },
    '/api/v1': { kind: 'APIResourceList', groupVersion: 'v1', resources: [] },
    '/apis': {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        {
          name: 'sample.tosdk.io',
          versions: [{ groupVersion: 'sample.tosdk.io/v1', version: 'v1' }],
          preferredVersion: { groupVersion: 'sample.tosdk.io/v1', version: 'v1' },
        },
      ],
    },
    '/apis/sample.tosdk.io/v1': {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'sample.tosdk.io/v1',
      resources: [
        {
          name: 'webpages',
          singularName: 'webpage',
          namespaced: true,
          kind: 'WebPage',
          shortNames: ['wp'],
          verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
        },
      ],
    },
    '/openapi/v3': { paths: openapi.paths },
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body =
      routes[url.pathname] ??
      (url.pathname.startsWith('/openapi/v3/') ? openapi.document(url.pathname) : undefined);
    if (!body) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
        }),
      );
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('kubectl explain against the OpenAPI v3 documents', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    server = await startServer();
    dir = await mkdtemp(join(tmpdir(), 'crd-explain-'));
    kubeconfig = join(dir, 'kubeconfig');
    const port = (server.address() as AddressInfo).port;
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "http://127.0.0.1:' + String(port) + '"}}]',
        'users: [{name: u, user: {}}]',
        'contexts: [{name: x, context: {cluster: c, user: u, namespace: default}}]',
        'current-context: x',
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const explain = (...args: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(
        KUBECTL,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'explain', ...args],
        { timeout: 20_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      );
    });

  it('explains the kind, its description and fields', async () => {
    const out = await explain('webpages');
    expect(out).toMatch(/GROUP:\s+sample\.tosdk\.io/);
    expect(out).toMatch(/KIND:\s+WebPage/);
    expect(out).toMatch(/VERSION:\s+v1/);
    expect(out).toContain('A web page served by nginx.');
    expect(out).toMatch(/spec\s+<Object>/);
    expect(out).toMatch(/metadata\s+<ObjectMeta>/);
  }, 30_000);

  it('explains a field path and metadata through the ObjectMeta schema', async () => {
    const replicas = await explain('webpages.spec.replicas');
    expect(replicas).toMatch(/FIELD:\s+replicas <integer>/);
    const meta = await explain('wp.metadata.labels');
    expect(meta).toMatch(/FIELD:\s+labels <map\[string\]string>/);
  }, 30_000);

  it('explains recursively', async () => {
    const out = await explain('webpages', '--recursive');
    expect(out).toMatch(/spec\s+<Object>/);
    expect(out).toMatch(/html\s+<string> -required-/);
    expect(out).toMatch(/conditions\s+<\[\]Object>/);
    expect(out).toMatch(/ownerReferences\s+<\[\]OwnerReference>/);
  }, 30_000);
});
