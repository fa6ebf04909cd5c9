/**
 * Review S13: the webhooks served by WebhookModule checked against the webhook contract of
 * kube-apiserver (k8s.io/apiserver pkg/admission/plugin/webhook, apiextensions-apiserver's
 * webhook_converter.go), called by the in-memory API server or posted as kube-apiserver posts them.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module, Scope } from '@nestjs/common';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { KubernetesObject } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import { ConversionWebhook, MutatingWebhook, ValidatingWebhook } from '../webhook.decorators.js';
import { AdmissionDeniedError } from '../webhook.errors.js';
import { crdConversion, mutatingWebhookConfiguration, webhookDeclarations } from '../webhook-manifests.js';
import { WebhookModule } from '../webhook.module.js';
import { WebhookServer } from '../webhook.server.js';
import { developmentWebhookTls } from '../webhook-tls.js';
import type { AdmissionRequest, Converter, Mutator, Validator } from '../webhook.types.js';

type Json = Record<string, unknown>;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Json;
}

/** One request over HTTP or HTTPS (trusting `ca`), with a bearer token when given. */
function send(
  url: string,
  method: string,
  body: unknown,
  opts: { ca?: string; token?: string } = {},
): Promise<Answer> {
  const u = new URL(url);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {};
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const doRequest = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = doRequest(u, { method, headers, ca: opts.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          json: () => JSON.parse(text) as Json,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Polls `check` until it returns true, for at most `ms`. */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ConfigMaps = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap' };
const Gadget = { group: 's13.example.com', version: 'v1', plural: 'gadgets', kind: 'Gadget' };

/**
 * Defaults a label on every write and, on DELETE, refuses to delete a ConfigMap annotated
 * `example.com/protected: "true"` (a mutating webhook also called for DELETE).
 */
@Injectable()
@MutatingWebhook({
  resource: ConfigMaps,
  name: 'guard.configmaps.example.com',
  operations: ['CREATE', 'UPDATE', 'DELETE'],
  objectSelector: { matchLabels: { guard: 'yes' } },
})
class Guard implements Mutator {
  mutate(o: KubernetesObject, request: AdmissionRequest): KubernetesObject {
    if (request.operation === 'DELETE' && o.metadata!.annotations?.['example.com/protected'] === 'true')
      throw new AdmissionDeniedError(`${o.metadata!.name ?? ''} is protected`);
    o.metadata!.labels = { ...o.metadata!.labels, 'example.com/defaulted': 'true' };
    return o;
  }
}

/** Allows every ConfigMap (a webhook to post large reviews to). */
@Injectable()
@ValidatingWebhook({ resource: ConfigMaps, name: 'allow.configmaps.example.com' })
class AllowAll implements Validator {
  validate(): void {}
}

/** Refuses ConfigMaps labelled strict=yes that have a `legacy` key, with a warning on the way. */
@Injectable()
@ValidatingWebhook({
  resource: ConfigMaps,
  name: 'strict.configmaps.example.com',
  objectSelector: { matchLabels: { strict: 'yes' } },
})
class Strict implements Validator {
  validate(r: AdmissionRequest): void {
    if ((r.object as { data?: Json } | null)?.data?.legacy !== undefined)
      throw new AdmissionDeniedError('data.legacy is not allowed', 422, {
        warnings: ['data.legacy was renamed data.current in v2'],
      });
  }
}

interface GadgetObject extends KubernetesObject {
  spec?: { size?: number; colour?: string };
}

/**
 * v1 (hub) has no colour: v2's colour travels in the annotation `s13.example.com/colour` while at
 * v1, and the annotation is removed (with the annotations map when it is left empty) at v2.
 */
@Injectable()
@ConversionWebhook({ resource: Gadget, hub: 'v1' })
class GadgetConverter implements Converter {
  toHub(o: GadgetObject): GadgetObject {
    const annotations = { ...o.metadata?.annotations, 's13.example.com/colour': o.spec?.colour ?? '' };
    return { ...o, metadata: { ...o.metadata, annotations }, spec: { size: o.spec?.size } };
  }
  fromHub(o: GadgetObject): GadgetObject {
    const { ['s13.example.com/colour']: colour, ...rest } = o.metadata?.annotations ?? {};
    const metadata = { ...o.metadata };
    if (Object.keys(rest).length > 0) metadata.annotations = rest;
    else delete metadata.annotations;
    return { ...o, metadata, spec: { size: o.spec?.size, colour } };
  }
}

describe('review S13: webhooks against the kube-apiserver webhook contract', () => {
  describe('called by the in-memory API server', () => {
    let server: KubeApiServer;
    let app: INestApplicationContext;
    let webhooks: WebhookServer;
    const CM = '/api/v1/namespaces/default/configmaps';
    const api = (method: string, path: string, body?: unknown): Promise<Answer> =>
      send(new URL(path, server.url).toString(), method, body, {
        ca: server.caPem,
        token: server.tokenOf(),
      });

    @Module({
      imports: [WebhookModule.forRoot({ port: 0, host: '127.0.0.1' })],
      providers: [Guard, Strict],
    })
    class App {}

    beforeAll(async () => {
      [server, app] = await Promise.all([
        KubeApiServer.start({ host: '127.0.0.1' }),
        NestFactory.createApplicationContext(App, { logger: false }),
      ]);
      webhooks = app.get(WebhookServer);
      const created = await api(
        'POST',
        '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
        webhooks.mutatingConfiguration('s13-mutating'),
      );
      expect(created.status).toBe(201);
      const validating = await api(
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        webhooks.validatingConfiguration('s13-validating'),
      );
      expect(validating.status).toBe(201);
    });
    afterAll(async () => {
      await app?.close();
      await server?.stop();
    });

    it('[FINDING S13-WH1] a mutating webhook called for DELETE judges the object being deleted (oldObject): it allows one and refuses the other with its message', async () => {
      for (const name of ['plain', 'protected']) {
        const r = await api('POST', CM, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name,
            labels: { guard: 'yes' },
            annotations: name === 'protected' ? { 'example.com/protected': 'true' } : {},
          },
        });
        expect(r.status).toBe(201);
        expect((r.json().metadata as { labels: Json }).labels['example.com/defaulted']).toBe('true');
      }
      // kube-apiserver sends DELETE with object null and oldObject the stored object
      const deleted = await api('DELETE', `${CM}/plain`);
      expect({ status: deleted.status, message: deleted.json().message }).toEqual({
        status: 200,
        message: undefined,
      });
      expect((await api('GET', `${CM}/plain`)).status).toBe(404);
      const refused = await api('DELETE', `${CM}/protected`);
      expect({ status: refused.status, message: refused.json().message }).toEqual({
        status: 403,
        message:
          'admission webhook "guard.configmaps.example.com" denied the request: protected is protected',
      });
      expect((await api('GET', `${CM}/protected`)).status).toBe(200);
    });

    it('[FINDING S13-WH8] a validator refusing a write can send warnings with the denial, which the client receives with the refusal', async () => {
      const r = await api('POST', CM, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'strict', labels: { strict: 'yes' } },
        data: { legacy: 'x' },
      });
      expect({ status: r.status, message: r.json().message, warning: r.headers.warning }).toEqual({
        status: 422,
        message:
          'admission webhook "strict.configmaps.example.com" denied the request: data.legacy is not allowed',
        warning: '299 - "data.legacy was renamed data.current in v2"',
      });
    });
  });

  describe('conversion answers posted to the HTTPS server', () => {
    let app: INestApplicationContext;
    let webhooks: WebhookServer;

    @Module({
      imports: [WebhookModule.forRoot({ port: 0, host: '127.0.0.1' })],
      providers: [GadgetConverter, AllowAll],
    })
    class App {}

    beforeAll(async () => {
      app = await NestFactory.createApplicationContext(App, { logger: false });
      webhooks = app.get(WebhookServer);
    });
    afterAll(async () => {
      await app?.close();
    });

    it('[FINDING S13-WH2] a converter that removes the annotations map answers an object without it (kube keeps the converted labels and annotations, absent ones included)', async () => {
      const ca = Buffer.from(webhooks.caBundle, 'base64').toString('utf8');
      const r = await send(
        `${webhooks.url}/convert/gadgets.s13.example.com`,
        'POST',
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: {
            uid: 'u-1',
            desiredAPIVersion: 's13.example.com/v2',
            objects: [
              {
                apiVersion: 's13.example.com/v1',
                kind: 'Gadget',
                metadata: {
                  name: 'g',
                  namespace: 'default',
                  uid: 'x',
                  annotations: { 's13.example.com/colour': 'blue' },
                },
                spec: { size: 2 },
              },
            ],
          },
        },
        { ca },
      );
      expect(r.status).toBe(200);
      const [converted] = (r.json().response as { convertedObjects: GadgetObject[] }).convertedObjects;
      expect(converted).toEqual({
        apiVersion: 's13.example.com/v2',
        kind: 'Gadget',
        metadata: { name: 'g', namespace: 'default', uid: 'x' },
        spec: { size: 2, colour: 'blue' },
      });
    });

    it('[FINDING S13-WH6] a ConversionReview of a 5 MB list and an AdmissionReview of an UPDATE with two 1.6 MB objects are answered, not refused with 413', async () => {
      const ca = Buffer.from(webhooks.caBundle, 'base64').toString('utf8');
      const filler = 'x'.repeat(1_000);
      const objects = Array.from({ length: 5_000 }, (_, i) => ({
        apiVersion: 's13.example.com/v1',
        kind: 'Gadget',
        metadata: { name: `g${i}`, namespace: 'default', annotations: { filler } },
        spec: { size: i },
      }));
      const converted = await send(
        `${webhooks.url}/convert/gadgets.s13.example.com`,
        'POST',
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: { uid: 'list', desiredAPIVersion: 's13.example.com/v2', objects },
        },
        { ca },
      );
      expect(converted.status).toBe(200);
      expect((converted.json().response as { convertedObjects: unknown[] }).convertedObjects).toHaveLength(
        5_000,
      );

      const big = (v: string): Json => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'big', namespace: 'default' },
        data: { v: v.repeat(1_600_000) },
      });
      const admitted = await send(
        `${webhooks.url}/validate/allow.configmaps.example.com`,
        'POST',
        {
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: {
            uid: 'update',
            kind: { group: '', version: 'v1', kind: 'ConfigMap' },
            resource: { group: '', version: 'v1', resource: 'configmaps' },
            name: 'big',
            namespace: 'default',
            operation: 'UPDATE',
            userInfo: { username: 'u' },
            object: big('a'),
            oldObject: big('b'),
          },
        },
        { ca },
      );
      expect(admitted.status).toBe(200);
      expect(admitted.json().response).toEqual({ uid: 'update', allowed: true });
    });

    it('[FINDING S13-WH11] an AdmissionReview of admission.k8s.io/v1beta1 (a configuration listing v1beta1 first) is answered in that version', async () => {
      const ca = Buffer.from(webhooks.caBundle, 'base64').toString('utf8');
      const r = await send(
        `${webhooks.url}/validate/allow.configmaps.example.com`,
        'POST',
        {
          apiVersion: 'admission.k8s.io/v1beta1',
          kind: 'AdmissionReview',
          request: {
            uid: 'beta',
            kind: { group: '', version: 'v1', kind: 'ConfigMap' },
            resource: { group: '', version: 'v1', resource: 'configmaps' },
            name: 'c',
            namespace: 'default',
            operation: 'CREATE',
            userInfo: { username: 'u' },
            object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
            oldObject: null,
          },
        },
        { ca },
      );
      expect({ status: r.status, body: r.json() }).toEqual({
        status: 200,
        body: {
          apiVersion: 'admission.k8s.io/v1beta1',
          kind: 'AdmissionReview',
          response: { uid: 'beta', allowed: true },
        },
      });
    });
  });

  describe('served only through WebhookController (listen: false)', () => {
    @Module({
      imports: [WebhookModule.forRoot({ listen: false, controller: true })],
      providers: [Guard],
    })
    class RoutesApp {}

    it('[FINDING S13-WH4] the configurations are not generated for a server that does not listen: a typed error says to pass the endpoint of the app', async () => {
      const app = await NestFactory.create(RoutesApp, { logger: false });
      try {
        await app.listen(0, '127.0.0.1');
        const webhooks = app.get(WebhookServer);
        let thrown: unknown;
        try {
          webhooks.mutatingConfiguration('s13-routes');
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toMatchObject({
          code: 'InvalidWebhookConfiguration',
          message: expect.stringContaining('listen: false'),
        });
        const base = (await app.getUrl()).replace('http:', 'https:');
        const given = webhooks.mutatingConfiguration('s13-routes', {
          url: `${base}/webhooks`,
          caBundle: 'Y2E=',
        });
        expect(given.webhooks?.[0]?.clientConfig).toEqual({
          url: `${base}/webhooks/mutate/guard.configmaps.example.com`,
          caBundle: 'Y2E=',
        });
      } finally {
        await app.close();
      }
    });

    it('[FINDING S13-WH5] a Service endpoint with a path prefix reaches the routes under /webhooks', () => {
      const decls = webhookDeclarations([Guard, GadgetConverter]);
      const service = { namespace: 'ops', name: 'app', port: 443, path: '/webhooks' };
      const mutating = mutatingWebhookConfiguration('s13', decls, { service, caBundle: 'Y2E=' });
      expect(mutating.webhooks?.[0]?.clientConfig).toEqual({
        service: {
          namespace: 'ops',
          name: 'app',
          port: 443,
          path: '/webhooks/mutate/guard.configmaps.example.com',
        },
        caBundle: 'Y2E=',
      });
      expect(
        crdConversion('gadgets.s13.example.com', decls, { service: { ...service, path: '/webhooks/' } })
          .webhook?.clientConfig,
      ).toEqual({
        service: {
          namespace: 'ops',
          name: 'app',
          port: 443,
          path: '/webhooks/convert/gadgets.s13.example.com',
        },
      });
    });
  });

  describe('webhook providers Nest does not construct once', () => {
    /** A request-scoped dependency: a provider depending on it is request-scoped too. */
    @Injectable({ scope: Scope.REQUEST })
    class PerRequestRules {
      readonly maxSize = 3;
    }

    @Injectable()
    @ValidatingWebhook({ resource: ConfigMaps, name: 'scoped.configmaps.example.com' })
    class ScopedValidator implements Validator {
      constructor(private readonly rules: PerRequestRules) {}
      validate(r: AdmissionRequest): void {
        if (Object.keys((r.object as { data?: Json } | null)?.data ?? {}).length > this.rules.maxSize)
          throw new AdmissionDeniedError('too many keys');
      }
    }

    @Injectable({ scope: Scope.TRANSIENT })
    @ValidatingWebhook({ resource: ConfigMaps, name: 'transient.configmaps.example.com' })
    class TransientValidator implements Validator {
      validate(): void {}
    }

    it('[FINDING S13-WH7] a request-scoped or transient webhook provider fails the start with a typed error naming it, instead of answering every review from an instance Nest never constructed', async () => {
      for (const [provider, name] of [
        [ScopedValidator, 'ScopedValidator'],
        [TransientValidator, 'TransientValidator'],
      ] as const) {
        @Module({
          imports: [WebhookModule.forRoot({ port: 0, host: '127.0.0.1' })],
          providers: [PerRequestRules, provider],
        })
        class ScopedApp {}
        let app: INestApplicationContext | undefined;
        let failure: unknown;
        try {
          app = await NestFactory.createApplicationContext(ScopedApp, { logger: false, abortOnError: false });
        } catch (e) {
          failure = e;
        }
        await app?.close();
        expect(failure).toMatchObject({
          code: 'InvalidWebhookConfiguration',
          message: expect.stringContaining(name),
        });
      }
    });
  });

  describe('shutting down', () => {
    let entered: () => void = () => undefined;
    let release: () => void = () => undefined;

    /** Answers once the test releases it. */
    @Injectable()
    @ValidatingWebhook({ resource: ConfigMaps, name: 'slow.configmaps.example.com' })
    class Slow implements Validator {
      async validate(): Promise<void> {
        entered();
        await new Promise<void>((r) => {
          release = r;
        });
      }
    }

    it('[FINDING S13-WH9] a review in flight when the application closes is answered before the server stops, not cut', async () => {
      @Module({ imports: [WebhookModule.forRoot({ port: 0, host: '127.0.0.1' })], providers: [Slow] })
      class SlowApp {}
      const app = await NestFactory.createApplicationContext(SlowApp, { logger: false });
      const webhooks = app.get(WebhookServer);
      const ca = Buffer.from(webhooks.caBundle, 'base64').toString('utf8');
      const url = `${webhooks.url}/validate/slow.configmaps.example.com`;
      const review = {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'in-flight',
          kind: { group: '', version: 'v1', kind: 'ConfigMap' },
          resource: { group: '', version: 'v1', resource: 'configmaps' },
          name: 'c',
          namespace: 'default',
          operation: 'CREATE',
          userInfo: { username: 'u' },
          object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
          oldObject: null,
        },
      };
      const inside = new Promise<void>((r) => {
        entered = r;
      });
      const answer = send(url, 'POST', review, { ca }).then(
        (a) => ({ status: a.status, response: a.json().response }),
        (e: Error) => ({ error: e.message }),
      );
      await inside;
      const closed = app.close();
      // the server stops accepting connections first
      await until(() =>
        send(url, 'POST', review, { ca }).then(
          () => false,
          () => true,
        ),
      );
      release();
      expect(await answer).toEqual({ status: 200, response: { uid: 'in-flight', allowed: true } });
      await closed;
    });
  });

  describe('an IPv6 listening address', () => {
    it('[FINDING S13-WH10] the URL of a server on an IPv6 address brackets it, so the configurations made from it are valid', async () => {
      @Module({ imports: [WebhookModule.forRoot({ host: 'fd00::5', port: 9443, listen: false })] })
      class V6App {}
      const app = await NestFactory.createApplicationContext(V6App, { logger: false });
      try {
        const webhooks = app.get(WebhookServer);
        expect(webhooks.url).toBe('https://[fd00::5]:9443');
        expect(new URL(`${webhooks.url}/validate/x`).hostname).toBe('[fd00::5]');
      } finally {
        await app.close();
      }
    });
  });

  describe('serving certificate from files', () => {
    let dir: string;
    let app: INestApplicationContext | undefined;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 's13-webhook-tls-'));
    });
    afterAll(async () => {
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Writes the files as the kubelet updates a mounted Secret: new files swapped in by rename. */
    function writeTls(tls: { certPem: string; keyPem: string; caPem: string }): void {
      for (const [file, text] of [
        ['tls.crt', tls.certPem],
        ['tls.key', tls.keyPem],
        ['ca.crt', tls.caPem],
      ] as const) {
        writeFileSync(join(dir, `${file}.new`), text);
        renameSync(join(dir, `${file}.new`), join(dir, file));
      }
    }

    it('[FINDING S13-WH3] certificate files that cannot be read fail the start with a typed error naming the file', async () => {
      @Module({
        imports: [
          WebhookModule.forRoot({
            port: 0,
            host: '127.0.0.1',
            tlsFiles: { certFile: join(dir, 'missing.crt'), keyFile: join(dir, 'missing.key') },
          }),
        ],
      })
      class MissingApp {}
      const start = NestFactory.createApplicationContext(MissingApp, { logger: false, abortOnError: false });
      await expect(start).rejects.toMatchObject({
        code: 'InvalidWebhookConfiguration',
        message: expect.stringContaining(
          `cannot read the webhook server's certificate ${join(dir, 'missing.crt')}`,
        ),
      });
    });

    it('[FINDING S13-WH3] a certificate renewed on disk (cert-manager rotating the mounted Secret) is served without a restart, and caBundle follows it', async () => {
      const [first, second] = await Promise.all([developmentWebhookTls(), developmentWebhookTls()]);
      writeTls(first);

      @Module({
        imports: [
          WebhookModule.forRoot({
            port: 0,
            host: '127.0.0.1',
            tlsFiles: {
              certFile: join(dir, 'tls.crt'),
              keyFile: join(dir, 'tls.key'),
              caFile: join(dir, 'ca.crt'),
              checkIntervalMs: 100,
            },
          }),
        ],
        providers: [GadgetConverter],
      })
      class FilesApp {}
      app = await NestFactory.createApplicationContext(FilesApp, { logger: false });
      const webhooks = app.get(WebhookServer);
      const review = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'u', desiredAPIVersion: 's13.example.com/v1', objects: [] },
      };
      const url = `${webhooks.url}/convert/gadgets.s13.example.com`;
      const trusted = (ca: string): Promise<boolean> =>
        send(url, 'POST', review, { ca }).then(
          (a) => a.status === 200,
          () => false,
        );

      expect(await trusted(first.caPem)).toBe(true);
      expect(Buffer.from(webhooks.caBundle, 'base64').toString('utf8')).toBe(first.caPem);

      writeTls(second);
      await until(() => trusted(second.caPem));
      expect(await trusted(first.caPem)).toBe(false);
      expect(Buffer.from(webhooks.caBundle, 'base64').toString('utf8')).toBe(second.caPem);
    });
  });
});
