import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module } from '@nestjs/common';
import type { INestApplicationContext, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KubeApiServer } from '@tosdk/apiserver';
import { customResourceDefinitions, KubernetesApiError, KubernetesClient } from '@tosdk/core';
import { MutatingWebhook, ValidatingWebhook, WebhookServer } from '@tosdk/nestjs/webhooks';
import type { AdmissionRequest, Mutator, Validator } from '@tosdk/nestjs/webhooks';
import { waitFor } from '@tosdk/nestjs/testing';
import { WebPage, WebPageV2 } from '../apps/webpage/src/webpage.resource.js';
import { WebPageWebhooksModule } from '../apps/webpage/src/webhooks/webpage-webhooks.module.js';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs kubectl against the in-memory server (async: the server and the webhooks run in this process). */
function kubectl(kubeconfig: string, args: string[], input = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

/** Strips HTML comments before the page is stored: a page of only comments becomes blank. */
@Injectable()
@MutatingWebhook({ resource: WebPage, name: 'strip-comments.webpages.sample.tosdk.io' })
class StripComments implements Mutator<WebPage> {
  mutate(page: WebPage): WebPage {
    if (page.spec) page.spec.html = page.spec.html.replace(/<!--[\s\S]*?-->/g, ' ');
    return page;
  }
}

/** A validating webhook slower than its 1 second timeout, for ConfigMaps labelled slow=yes. */
@Injectable()
@ValidatingWebhook({
  resource: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap' },
  name: 'slow.configmaps.example.com',
  timeoutSeconds: 1,
  objectSelector: { matchLabels: { slow: 'yes' } },
})
class SlowValidator implements Validator {
  async validate(_request: AdmissionRequest): Promise<void> {
    await new Promise((r) => setTimeout(r, 3_000).unref());
  }
}

@Module({
  imports: [WebPageWebhooksModule.forRoot({ port: 0, host: '127.0.0.1' })],
  providers: [StripComments, SlowValidator],
})
class WebhookTestApp {}

/** Nest logger that keeps the lines, to check what the webhook server reports. */
class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown): void {
    this.lines.push(String(message));
  }
  error(message: unknown): void {
    this.lines.push(String(message));
  }
  warn(message: unknown): void {
    this.lines.push(String(message));
  }
}

function page(name: string, html: string, apiVersion = 'sample.tosdk.io/v1'): string {
  return JSON.stringify({
    apiVersion,
    kind: 'WebPage',
    metadata: { name, namespace: 'default' },
    spec: { html },
  });
}

describe('WebPage webhooks served by Nest, called by the in-memory API server, driven by kubectl', () => {
  let server: KubeApiServer;
  let app: INestApplicationContext;
  let webhooks: WebhookServer;
  let dir: string;
  let kc: string;
  const logs = new CapturingLogger();

  beforeAll(async () => {
    server = await KubeApiServer.start({ host: '127.0.0.1' });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-webhooks-'));
    kc = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kc);
    app = await NestFactory.createApplicationContext(WebhookTestApp, { logger: logs });
    webhooks = app.get(WebhookServer);
    // the CRD from the WebPage declarations (v1 stored, v2 served), converted by the app's webhook
    const [crd] = customResourceDefinitions([WebPage, WebPageV2]);
    const withConversion = {
      ...crd,
      spec: { ...crd.spec, conversion: webhooks.conversion('webpages.sample.tosdk.io') },
    };
    const manifests = [
      withConversion,
      webhooks.validatingConfiguration('webpage-validation'),
      webhooks.mutatingConfiguration('webpage-defaults'),
    ];
    for (const manifest of manifests) {
      const applied = await kubectl(kc, ['apply', '-f', '-'], JSON.stringify(manifest));
      expect(applied.stderr).toBe('');
    }
    await waitFor(async () => (await kubectl(kc, ['get', 'webpages.v2.sample.tosdk.io'])).code === 0, {
      timeoutMs: 20_000,
    });
  });

  afterAll(async () => {
    await app?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("kubectl apply of a blank page is refused at admission with the webhook's message", async () => {
    const r = await kubectl(kc, ['apply', '-f', '-'], page('blank', '   '));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'admission webhook "validate.webpages.sample.tosdk.io" denied the request: spec.html is blank: set it to the page to serve',
    );
    expect((await kubectl(kc, ['get', 'webpage', 'blank'])).stderr).toContain('not found');
    const ok = await kubectl(kc, ['apply', '-f', '-'], page('hello', '<h1>Hello</h1>'));
    expect(ok.stdout).toContain('webpage.sample.tosdk.io/hello created');
  });

  it('a mutating webhook changes a field that the validating webhook then checks', async () => {
    const r = await kubectl(kc, ['apply', '-f', '-'], page('draft', '<!-- draft, nothing yet -->'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'admission webhook "validate.webpages.sample.tosdk.io" denied the request: spec.html is blank',
    );
    const ok = await kubectl(kc, ['apply', '-f', '-'], page('commented', '<!-- hi --><p>text</p>'));
    expect(ok.code).toBe(0);
    const html = await kubectl(kc, [
      'get',
      'webpages.v1.sample.tosdk.io',
      'commented',
      '-o',
      'jsonpath={.spec.html}',
    ]);
    expect(html.stdout).toBe(' <p>text</p>');
  });

  it('v2 objects are converted by the conversion webhook on writes, reads, Tables and lists', async () => {
    const v2 = JSON.stringify({
      apiVersion: 'sample.tosdk.io/v2',
      kind: 'WebPage',
      metadata: { name: 'modern', namespace: 'default' },
      spec: { content: { html: '<p>v2</p>' }, exposure: 'Public' },
    });
    expect((await kubectl(kc, ['apply', '-f', '-'], v2)).stdout).toContain(
      'webpage.sample.tosdk.io/modern created',
    );
    const asV1 = await kubectl(kc, [
      'get',
      'webpages.v1.sample.tosdk.io',
      'modern',
      '-o',
      'jsonpath={.spec.html} {.spec.exposed}',
    ]);
    expect(asV1.stdout).toBe('<p>v2</p> true');
    const asV2 = await kubectl(kc, [
      'get',
      'webpages.v2.sample.tosdk.io',
      'hello',
      '-o',
      'jsonpath={.spec.content.html}',
    ]);
    expect(asV2.stdout).toBe('<h1>Hello</h1>');
    const table = await kubectl(kc, ['get', 'webpages.v2.sample.tosdk.io', 'modern']);
    expect(table.stdout).toMatch(/^NAME\s+EXPOSURE\s+READY\s+AGE\nmodern\s+Public\s/);
    // a v2 write is admitted too: the validating webhook sees it converted to v1
    const blankV2 = await kubectl(
      kc,
      ['apply', '-f', '-'],
      v2.replace('modern', 'blank-v2').replace('<p>v2</p>', '  '),
    );
    expect(blankV2.stderr).toContain(
      'admission webhook "validate.webpages.sample.tosdk.io" denied the request: spec.html is blank',
    );
    // a second apply of the v2 file (GET and merge patch at v2) changes the page
    const changed = v2.replace('<p>v2</p>', '<p>v2 again</p>');
    expect((await kubectl(kc, ['apply', '-f', '-'], changed)).stdout).toContain(
      'webpage.sample.tosdk.io/modern configured',
    );
    // the operator's own client (@tosdk/core) lists v2 converted, and gets admission denials as typed errors
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
    const list = await client.list(WebPageV2, { namespace: 'default' });
    expect(list.items.find((i) => i.metadata?.name === 'modern')?.spec?.content.html).toBe('<p>v2 again</p>');
    expect(list.items.every((i) => i.apiVersion === 'sample.tosdk.io/v2')).toBe(true);
    const denied = await client
      .create(WebPage, {
        apiVersion: WebPage.apiVersion,
        kind: WebPage.kind,
        metadata: { name: 'blank-by-client', namespace: 'default' },
        spec: { html: ' ' },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(denied).toBeInstanceOf(KubernetesApiError);
    expect((denied as KubernetesApiError).message).toContain(
      'admission webhook "validate.webpages.sample.tosdk.io" denied the request: spec.html is blank',
    );
    expect((denied as KubernetesApiError).status).toBe(422);
  });

  it('a webhook slower than its timeout: the API server gives up, the webhook server reports it', async () => {
    const r = await kubectl(
      kc,
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'slow', namespace: 'default', labels: { slow: 'yes' } },
      }),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /slow\.configmaps\.example\.com.*(context deadline exceeded|did not answer within its timeoutSeconds \(1s\))/,
    );
    await waitFor(
      () =>
        logs.lines.some((l) =>
          l.includes(
            '"slow.configmaps.example.com" (SlowValidator) did not answer within its timeoutSeconds (1s)',
          ),
        ),
      { timeoutMs: 10_000 },
    );
  });

  it("webhook server down: failurePolicy Fail refuses with kube's message, Ignore admits", async () => {
    const port = webhooks.port;
    await app.close();
    const r = await kubectl(kc, ['apply', '-f', '-'], page('while-down', '<p>x</p>'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `Internal error occurred: failed calling webhook "strip-comments.webpages.sample.tosdk.io": failed to call webhook: Post "https://127.0.0.1:${port}/mutate/strip-comments.webpages.sample.tosdk.io?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    const configs = [
      [
        'mutatingwebhookconfiguration',
        'webpage-defaults',
        webhooks.mutatingConfiguration('x').webhooks ?? [],
      ],
      [
        'validatingwebhookconfiguration',
        'webpage-validation',
        webhooks.validatingConfiguration('x').webhooks ?? [],
      ],
    ] as const;
    for (const [kind, name, hooks] of configs) {
      const ops = hooks.map((_, k) => ({
        op: 'replace',
        path: `/webhooks/${k}/failurePolicy`,
        value: 'Ignore',
      }));
      const patched = await kubectl(kc, ['patch', kind, name, '--type=json', '-p', JSON.stringify(ops)]);
      expect(patched.code).toBe(0);
    }
    const admitted = await kubectl(kc, ['apply', '-f', '-'], page('while-down', '<p>x</p>'));
    expect(admitted.stderr + admitted.stdout).toContain('webpage.sample.tosdk.io/while-down created');
  });
});
