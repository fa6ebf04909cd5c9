/**
 * Review S8: webhooks written as Nest providers, served by the WebhookModule and called by the
 * in-memory API server. `[FINDING S8-WH<n>]` tests pass while the defect exists.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Injectable, Module } from '@nestjs/common';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { KubernetesObject } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import { ConversionWebhook, MutatingWebhook, ValidatingWebhook } from '../webhook.decorators.js';
import { WebhookModule } from '../webhook.module.js';
import { WebhookServer } from '../webhook.server.js';
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
  opts: { ca?: string; token?: string; contentType?: string } = {},
): Promise<Answer> {
  const u = new URL(url);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {};
  if (payload) {
    headers['content-type'] = opts.contentType ?? 'application/json';
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

const Widget = { group: 'review.example.com', version: 'v1', plural: 'widgets', kind: 'Widget' };
const ConfigMaps = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap' };

interface WidgetObject extends KubernetesObject {
  spec?: { size?: number; color?: string; paint?: { color?: string } };
}

@Injectable()
@ConversionWebhook({ resource: Widget, hub: 'v1' })
class WidgetConverter implements Converter {
  toHub(o: WidgetObject): WidgetObject {
    return { ...o, spec: { color: o.spec?.paint?.color } };
  }
  fromHub(o: WidgetObject): WidgetObject {
    return { ...o, spec: { paint: { color: o.spec?.color } } };
  }
}

/** Sets and removes annotations with `/` in their keys, drops the middle finalizer, adds labels. */
@Injectable()
@MutatingWebhook({
  resource: ConfigMaps,
  name: 'tidy.configmaps.example.com',
  objectSelector: { matchLabels: { tidy: 'yes' } },
})
class Tidy implements Mutator {
  mutate(o: KubernetesObject): KubernetesObject {
    const meta = o.metadata!;
    meta.annotations = { ...(meta.annotations ?? {}), 'example.com/owner': 'team-a' };
    delete meta.annotations['example.com/remove-me'];
    meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== 'example.com/middle');
    meta.labels = { ...(meta.labels ?? {}), 'app.kubernetes.io/managed-by': 'tidy' };
    const data = (o as KubernetesObject & { data?: Record<string, string | undefined> }).data;
    if (data) data.drop = undefined;
    return o;
  }
}

/** Throws a plain error (a bug) for ConfigMaps labelled buggy=yes. */
@Injectable()
@ValidatingWebhook({
  resource: ConfigMaps,
  name: 'buggy.configmaps.example.com',
  objectSelector: { matchLabels: { buggy: 'yes' } },
})
class Buggy implements Validator {
  validate(r: AdmissionRequest): void {
    throw new TypeError(`cannot read properties of undefined (reading 'html') in ${r.name ?? ''}`);
  }
}

function conversionReview(count: number): Json {
  const filler = 'x'.repeat(1000);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: {
      uid: 'big',
      desiredAPIVersion: 'review.example.com/v2',
      objects: Array.from({ length: count }, (_, i) => ({
        apiVersion: 'review.example.com/v1',
        kind: 'Widget',
        metadata: { name: `w${i}`, namespace: 'default', annotations: { filler } },
        spec: { color: 'red' },
      })),
    },
  };
}

describe('review S8: webhooks served by Nest', () => {
  describe('WebhookController (controller: true) on the application server', () => {
    let app: INestApplication;
    let base: string;

    @Module({
      imports: [WebhookModule.forRoot({ listen: false, controller: true })],
      providers: [WidgetConverter],
    })
    class ControllerApp {}

    beforeAll(async () => {
      app = await NestFactory.create(ControllerApp, { logger: false });
      await app.listen(0, '127.0.0.1');
      const http = app.getHttpServer() as Server;
      base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await app?.close();
    });

    it('converts a small review through the Nest route', async () => {
      const r = await send(
        `${base}/webhooks/convert/widgets.review.example.com`,
        'POST',
        conversionReview(3),
      );
      expect(r.status).toBe(200);
      const response = r.json().response as { result: { status: string }; convertedObjects: WidgetObject[] };
      expect(response.result.status).toBe('Success');
      expect(response.convertedObjects.map((o) => o.spec)).toEqual([
        { paint: { color: 'red' } },
        { paint: { color: 'red' } },
        { paint: { color: 'red' } },
      ]);
    });

    it('[FINDING S8-WH10] a ConversionReview of a list larger than 100 kB is answered, not refused with 413 by the body parser', async () => {
      // 200 objects of about 1 kB: a list the standalone server converts
      const r = await send(
        `${base}/webhooks/convert/widgets.review.example.com`,
        'POST',
        conversionReview(200),
      );
      expect(r.status).toBeLessThan(300);
      expect((r.json().response as { result: { status: string } }).result.status).toBe('Success');
    });
  });

  describe('the standalone HTTPS server called by the in-memory API server', () => {
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
      providers: [Tidy, Buggy, WidgetConverter],
    })
    class HttpsApp {}

    beforeAll(async () => {
      [server, app] = await Promise.all([
        KubeApiServer.start({ host: '127.0.0.1' }),
        NestFactory.createApplicationContext(HttpsApp, { logger: false }),
      ]);
      webhooks = app.get(WebhookServer);
      expect(
        (
          await api(
            'POST',
            '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
            webhooks.mutatingConfiguration('review-mutating'),
          )
        ).status,
      ).toBe(201);
      expect(
        (
          await api(
            'POST',
            '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
            webhooks.validatingConfiguration('review-validating'),
          )
        ).status,
      ).toBe(201);
    });
    afterAll(async () => {
      await app?.close();
      await server?.stop();
    });

    it("a mutator's changes arrive as a JSON patch the API server applies: keys with '/', removed array items, new maps, undefined fields", async () => {
      const created = await api('POST', CM, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'tidy',
          labels: { tidy: 'yes' },
          annotations: { 'example.com/remove-me': 'x', 'example.com/keep': 'y' },
          finalizers: ['example.com/first', 'example.com/middle', 'example.com/last'],
        },
        data: { keep: 'k', drop: 'd' },
      });
      expect(created.status).toBe(201);
      const stored = (await api('GET', `${CM}/tidy`)).json() as {
        metadata: { annotations: Json; finalizers: string[]; labels: Json };
        data: Json;
      };
      expect(stored.metadata.annotations).toEqual({ 'example.com/keep': 'y', 'example.com/owner': 'team-a' });
      expect(stored.metadata.finalizers).toEqual(['example.com/first', 'example.com/last']);
      expect(stored.metadata.labels).toEqual({ tidy: 'yes', 'app.kubernetes.io/managed-by': 'tidy' });
      expect(stored.data).toEqual({ keep: 'k' });
      await send(
        new URL(`${CM}/tidy`, server.url).toString(),
        'PATCH',
        [{ op: 'remove', path: '/metadata/finalizers' }],
        {
          ca: server.caPem,
          token: server.tokenOf(),
          contentType: 'application/json-patch+json',
        },
      );
    });

    it("a validator that throws a plain error denies with its message, which the API server's client sees", async () => {
      const r = await api('POST', CM, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'buggy', labels: { buggy: 'yes' } },
        data: {},
      });
      expect(r.status).toBe(500);
      expect(r.json().message).toBe(
        `admission webhook "buggy.configmaps.example.com" denied the request: cannot read properties of undefined (reading 'html') in buggy`,
      );
      expect((await api('GET', `${CM}/buggy`)).status).toBe(404);
    });

    it('a malformed review posted to the server gets a 400 with the reason, and the server keeps serving', async () => {
      const ca = Buffer.from(webhooks.caBundle, 'base64').toString('utf8');
      const bad = await send(
        `${webhooks.url}/validate/buggy.configmaps.example.com`,
        'POST',
        { hello: 1 },
        { ca },
      );
      expect(bad.status).toBe(400);
      expect(String(bad.json().message)).toContain('malformed review');
      const big = await send(
        `${webhooks.url}/convert/widgets.review.example.com`,
        'POST',
        conversionReview(200),
        {
          ca,
        },
      );
      expect(big.status).toBe(200);
      expect((big.json().response as { convertedObjects: unknown[] }).convertedObjects).toHaveLength(200);
    });
  });
});
