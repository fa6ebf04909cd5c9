/**
 * WebhookController on the application's own Express server (`controller: true`): large reviews
 * reach it whatever the app's JSON body limit, and the app's other routes keep
 * Express's parser and limit (review S8-WH10: a converted list over 100 kB was refused with 413).
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Body, Controller, Injectable, Module, Post } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ConversionWebhook } from '../webhook.decorators.js';
import { WebhookModule } from '../webhook.module.js';
import { MAX_ADMISSION_REVIEW_BYTES } from '../webhook-body.js';
import type { Converter } from '../webhook.types.js';

interface Gadget extends KubernetesObject {
  spec?: { colour?: string; paint?: { colour?: string } };
}

@Injectable()
@ConversionWebhook({
  resource: { group: 'body.example.com', version: 'v1', plural: 'gadgets', kind: 'Gadget' },
  hub: 'v1',
})
class GadgetConverter implements Converter {
  toHub(o: Gadget): Gadget {
    return { ...o, spec: { colour: o.spec?.paint?.colour } };
  }
  fromHub(o: Gadget): Gadget {
    return { ...o, spec: { paint: { colour: o.spec?.colour } } };
  }
}

/** A route of the application itself, which keeps Express's JSON parser. */
@Controller('echo')
class EchoController {
  @Post()
  echo(@Body() body: unknown): { type: string; keys: string[] } {
    return {
      type: typeof body,
      keys: body && typeof body === 'object' ? Object.keys(body).sort() : [],
    };
  }
}

@Module({
  imports: [WebhookModule.forRoot({ listen: false, controller: true })],
  controllers: [EchoController],
  providers: [GadgetConverter],
})
class App {}

/** A ConversionReview of `count` v1 Gadgets of about `size` bytes each, to v2. */
function review(count: number, size = 1_000): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: {
      uid: `u-${count}`,
      desiredAPIVersion: 'body.example.com/v2',
      objects: Array.from({ length: count }, (_, i) => ({
        apiVersion: 'body.example.com/v1',
        kind: 'Gadget',
        metadata: { name: `g${i}`, namespace: 'default', annotations: { filler: 'x'.repeat(size) } },
        spec: { colour: 'teal' },
      })),
    },
  });
}

async function post(url: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await r.text();
  return {
    status: r.status,
    json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

interface ConversionAnswer {
  response: { uid: string; result: { status: string }; convertedObjects: Gadget[] };
}

describe.each([
  ['NestFactory.create, with a global prefix', 'factory'],
  ['Test.createTestingModule(...).createNestApplication()', 'testing'],
] as const)('WebhookController behind the app’s own body parser (%s)', (_label, how) => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    if (how === 'factory') {
      app = await NestFactory.create(App, { logger: false });
      app.setGlobalPrefix('api');
    } else {
      const moduleRef = await Test.createTestingModule({ imports: [App] }).compile();
      app = moduleRef.createNestApplication({ logger: false });
    }
    await app.listen(0, '127.0.0.1');
    base = `${await app.getUrl()}${how === 'factory' ? '/api' : ''}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('converts a review of 2,500 objects (2.6 MB, over Express’s 100 kB) and answers each object', async () => {
    const body = review(2_500);
    expect(Buffer.byteLength(body)).toBeGreaterThan(2_500_000);
    const r = await post(`${base}/webhooks/convert/gadgets.body.example.com`, body);
    expect(r.status).toBe(200);
    const { response } = r.json as unknown as ConversionAnswer;
    expect(response.uid).toBe('u-2500');
    expect(response.result.status).toBe('Success');
    expect(response.convertedObjects).toHaveLength(2_500);
    expect(response.convertedObjects[2_499]).toMatchObject({
      apiVersion: 'body.example.com/v2',
      metadata: { name: 'g2499' },
      spec: { paint: { colour: 'teal' } },
    });
  });

  it('refuses an admission review over 7 MiB with 413 and a message, and serves the next one', async () => {
    const body = review(7_400);
    expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_ADMISSION_REVIEW_BYTES);
    const r = await post(`${base}/webhooks/validate/any.gadgets.body.example.com`, body);
    expect(r.status).toBe(413);
    expect(r.json.message).toBe(`review larger than ${MAX_ADMISSION_REVIEW_BYTES} bytes`);
    expect((await post(`${base}/webhooks/convert/gadgets.body.example.com`, review(2))).status).toBe(200);
  });

  it('answers a review that is not JSON with 400 and the reason', async () => {
    const r = await post(`${base}/webhooks/convert/gadgets.body.example.com`, '{"apiVersion":');
    expect(r.status).toBe(400);
    expect(String(r.json.message)).toContain('malformed review: the body is not JSON');
  });

  it("leaves the app's other routes to Express's JSON parser and its limit", async () => {
    const small = await post(`${base}/echo`, JSON.stringify({ b: 1, a: 2 }));
    expect(small.status).toBe(201);
    expect(small.json).toEqual({ type: 'object', keys: ['a', 'b'] });
    // the app's own limit is unchanged: Express's 100 kB
    const large = await post(`${base}/echo`, JSON.stringify({ filler: 'x'.repeat(200_000) }));
    expect(large.status).toBe(413);
  });
});

describe('WebhookModule.forRoot({ controller: true }) imported by two modules of one app', () => {
  @Module({ imports: [WebhookModule.forRoot({ listen: false, controller: true })] })
  class Other {}
  @Module({ imports: [App, Other] })
  class Twice {}
  let app: INestApplication;

  beforeAll(async () => {
    app = await NestFactory.create(Twice, { logger: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers a review once read (the second reader passes it on instead of waiting for a body already read)', async () => {
    const r = await post(`${await app.getUrl()}/webhooks/convert/gadgets.body.example.com`, review(300));
    expect(r.status).toBe(200);
    expect((r.json as unknown as ConversionAnswer).response.convertedObjects).toHaveLength(300);
  });
});
