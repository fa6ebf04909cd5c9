import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { webPageCrd } from './fixtures.js';

const KUBECTL = '/usr/bin/kubectl';
// kubectl is required (.ci/run installs it when missing): a missing binary fails, it never skips.
const maybe = it;

/** The CRD module as the HTTP engine serves it, driven by the real kubectl. */
describe('kubectl against the API server with a CRD', () => {
  let server: KubeApiServer;
  let dir: string;

  const kubectl = (...args: string[]): Promise<{ code: number; out: string }> =>
    new Promise((resolve) => {
      execFile(
        KUBECTL,
        ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args],
        { timeout: 20_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}${stderr}` }),
      );
    });
  const file = async (name: string, content: unknown): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, JSON.stringify(content));
    return path;
  };
  const page = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'sample.tosdk.io/v1',
    kind: 'WebPage',
    metadata: { name, namespace: 'default' },
    spec,
  });

  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0, host: '127.0.0.1' });
    dir = await mkdtemp(join(tmpdir(), 'crd-kubectl-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    const applied = await kubectl('apply', '-f', await file('crd.json', webPageCrd()));
    expect(applied.out).toContain('webpages.sample.tosdk.io created');
    const established = await kubectl(
      'wait',
      '--for=condition=Established',
      'crd/webpages.sample.tosdk.io',
      '--timeout=15s',
    );
    expect(established.code).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  maybe(
    'strict validation (the kubectl default) rejects an unknown field; without it the field is pruned, defaults are applied and get shows the printer columns',
    async () => {
      const withJunk = await file('home.json', page('home', { html: '<p/>', color: 'red', junk: 1 }));
      const strict = await kubectl('apply', '-f', withJunk);
      expect(strict.code).not.toBe(0);
      expect(strict.out).toContain('unknown field "spec.junk"');
      expect((await kubectl('apply', '--validate=false', '-f', withJunk)).code).toBe(0);
      const json = JSON.parse((await kubectl('get', 'wp', 'home', '-o', 'json')).out) as {
        spec: Record<string, unknown>;
      };
      expect(json.spec).toEqual({ html: '<p/>', color: 'red', replicas: 1 });
      const table = (await kubectl('get', 'webpages', '--field-selector', 'spec.color=red')).out.split('\n');
      expect(table[0]).toMatch(/^NAME\s+REPLICAS\s+READY\s+AGE$/);
      expect(table[1]).toMatch(/^home\s+1\s+\d+s$/);
    },
    60_000,
  );

  maybe(
    'an invalid custom resource is rejected with the Kubernetes-worded causes',
    async () => {
      const bad = await kubectl(
        'apply',
        '-f',
        await file('bad.json', page('bad', { replicas: 'two', color: 'pink' })),
      );
      expect(bad.code).not.toBe(0);
      expect(bad.out).toContain('The WebPage "bad" is invalid');
      expect(bad.out).toContain('spec.html: Required value');
      expect(bad.out).toContain(
        'spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"',
      );
      expect(bad.out).toContain(
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      );
    },
    60_000,
  );

  maybe(
    'server-side apply and explain work against the served OpenAPI',
    async () => {
      const ssa = await kubectl(
        'apply',
        '--server-side',
        '-f',
        await file('ssa.json', page('ssa', { html: 'x' })),
      );
      expect(ssa.out).toContain('webpage.sample.tosdk.io/ssa serverside-applied');
      const explain = await kubectl('explain', 'webpages.spec.html');
      expect(explain.out).toMatch(/FIELD:\s+html <string>/);
      expect(explain.out).toContain('The page body.');
    },
    60_000,
  );
});
