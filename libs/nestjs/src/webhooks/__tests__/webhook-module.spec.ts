import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:https';
import { Injectable, Module } from '@nestjs/common';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ValidatingWebhook } from '../webhook.decorators.js';
import { AdmissionDeniedError, WebhookConfigurationError } from '../webhook.errors.js';
import { WebhookModule } from '../webhook.module.js';
import { WebhookServer } from '../webhook.server.js';
import type { AdmissionRequest, Validator } from '../webhook.types.js';

const Page = { group: 'example.com', version: 'v1', plural: 'pages', kind: 'Page' };

@Injectable()
class Rules {
  readonly forbidden = 'nope';
}

@Injectable()
@ValidatingWebhook({ resource: Page, name: 'validate.pages.example.com' })
class PageValidator implements Validator {
  constructor(private readonly rules: Rules) {}
  validate(r: AdmissionRequest): void {
    if (r.name === this.rules.forbidden) throw new AdmissionDeniedError(`the name ${r.name} is forbidden`);
  }
}

@Injectable()
@ValidatingWebhook({ resource: Page, name: 'broken.pages.example.com' })
class NotAValidator {}

const review = (name: string): Record<string, unknown> => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u',
    kind: { group: 'example.com', version: 'v1', kind: 'Page' },
    resource: { group: 'example.com', version: 'v1', resource: 'pages' },
    name,
    operation: 'CREATE',
    userInfo: {},
    object: { metadata: { name } },
    oldObject: null,
  },
});

function post(
  url: string,
  ca: string,
  body: string,
  method = 'POST',
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('WebhookModule', () => {
  describe('HTTPS server with a development certificate', () => {
    let app: INestApplicationContext;
    let server: WebhookServer;

    @Module({
      imports: [WebhookModule.forRoot({ port: 0, host: '127.0.0.1' })],
      providers: [Rules, PageValidator],
    })
    class AppModule {}

    beforeAll(async () => {
      app = await NestFactory.createApplicationContext(AppModule, { logger: false });
      server = app.get(WebhookServer);
    });
    afterAll(async () => {
      await app?.close();
    });

    it('serves discovered webhooks (with their injected dependencies) over HTTPS trusted by the caBundle', async () => {
      const ca = Buffer.from(server.caBundle, 'base64').toString('utf8');
      const url = `${server.url}/validate/validate.pages.example.com`;
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const ok = await post(url, ca, JSON.stringify(review('fine')));
      expect(ok).toEqual({
        status: 200,
        json: {
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: 'u', allowed: true },
        },
      });
      const denied = await post(url, ca, JSON.stringify(review('nope')));
      expect(denied.json.response).toEqual({
        uid: 'u',
        allowed: false,
        status: { code: 403, message: 'the name nope is forbidden' },
      });
      const malformed = await post(url, ca, '{"apiVersion":');
      expect(malformed.status).toBe(400);
      expect(String(malformed.json.message)).toContain('malformed review: the body is not JSON');
      expect((await post(url, ca, '', 'GET')).status).toBe(405);
      expect(server.validatingConfiguration('pages').webhooks?.[0]?.clientConfig).toEqual({
        url,
        caBundle: server.caBundle,
      });
    });
  });

  it('also serves the webhooks as Nest routes with controller: true', async () => {
    @Module({
      imports: [WebhookModule.forRoot({ listen: false, controller: true })],
      providers: [Rules, PageValidator],
    })
    class RoutesModule {}
    const app: INestApplication = await NestFactory.create(RoutesModule, { logger: false });
    try {
      await app.listen(0, '127.0.0.1');
      const base = await app.getUrl();
      const r = await fetch(`${base}/webhooks/validate/validate.pages.example.com`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(review('nope')),
      });
      expect(r.status).toBe(200);
      expect(((await r.json()) as { response: { allowed: boolean } }).response.allowed).toBe(false);
      const bad = await fetch(`${base}/webhooks/validate/validate.pages.example.com`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'Nothing' }),
      });
      expect(bad.status).toBe(400);
    } finally {
      await app.close();
    }
  });

  it('a decorated provider without the handler method fails the start with a typed error naming it', async () => {
    @Module({ imports: [WebhookModule.forRoot({ port: 0, host: '127.0.0.1' })], providers: [NotAValidator] })
    class BrokenModule {}
    await expect(
      NestFactory.createApplicationContext(BrokenModule, { logger: false, abortOnError: false }),
    ).rejects.toThrow(
      new WebhookConfigurationError('NotAValidator is a validating webhook but has no validate method'),
    );
  });
});
