import 'reflect-metadata';
import { describe, expect, it, jest } from '@jest/globals';
import type { KubernetesObject } from '@kubernetes/client-node';
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import {
  ConversionWebhook,
  MutatingWebhook,
  ValidatingWebhook,
  getWebhookDeclaration,
} from '../webhook.decorators.js';
import { AdmissionDeniedError, WebhookConfigurationError } from '../webhook.errors.js';
import { WebhookReviewHandler } from '../webhook-review.handler.js';
import type { DiscoveredWebhook, WebhookAnswer } from '../webhook-review.handler.js';
import type { AdmissionRequest, Converter, Mutator, Validator } from '../webhook.types.js';

const Page = { group: 'example.com', version: 'v1', plural: 'pages', kind: 'Page' };

interface PageObject extends KubernetesObject {
  spec: { html: string; title?: string };
}

@ValidatingWebhook({ resource: Page, name: 'validate.pages.example.com' })
class PageValidator implements Validator<PageObject> {
  validate(r: AdmissionRequest<PageObject>): { warnings: string[] } | undefined {
    const html = r.object?.spec.html ?? '';
    if (html === 'boom') throw new TypeError('cannot read html');
    if (html.trim() === '') throw new AdmissionDeniedError('spec.html is blank');
    return html.length > 10 ? { warnings: ['long page'] } : undefined;
  }
}

@MutatingWebhook({ resource: Page })
class PageDefaulter implements Mutator<PageObject> {
  mutate(page: PageObject): void {
    page.spec.title ??= 'Untitled';
  }
}

@ValidatingWebhook({ resource: Page, name: 'never.pages.example.com', timeoutSeconds: 2 })
class NeverAnswers implements Validator {
  validate(): Promise<void> {
    return new Promise(() => undefined);
  }
}

/** v1 { html } is the hub; v2 { body: { html } }. */
@ConversionWebhook({ resource: Page, hub: 'v1' })
class PageConversion implements Converter {
  toHub(o: KubernetesObject): KubernetesObject {
    const v2 = o as KubernetesObject & { spec: { body: { html: string } } };
    return { ...v2, spec: { html: v2.spec.body.html } } as KubernetesObject;
  }
  fromHub(o: KubernetesObject): KubernetesObject {
    const v1 = o as PageObject;
    return {
      ...v1,
      metadata: { ...v1.metadata, labels: { converted: 'yes' } },
      spec: { body: { html: v1.spec.html } },
    } as KubernetesObject;
  }
}

function discovered(...types: (new () => object)[]): DiscoveredWebhook[] {
  return types.map((t) => ({ declaration: getWebhookDeclaration(t)!, instance: new t(), className: t.name }));
}

function review(object: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u-1',
      kind: { group: 'example.com', version: 'v1', kind: 'Page' },
      resource: { group: 'example.com', version: 'v1', resource: 'pages' },
      name: 'p',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'admin' },
      object,
      oldObject: null,
      ...extra,
    },
  };
}

const page = (html: string): PageObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Page',
  metadata: { name: 'p' },
  spec: { html },
});

function responseOf(a: WebhookAnswer): Record<string, unknown> {
  return a.body.response as Record<string, unknown>;
}

describe('WebhookReviewHandler', () => {
  const log = { warn: jest.fn<(m: string) => void>(), error: jest.fn<(m: string) => void>() };
  const handler = new WebhookReviewHandler(
    discovered(PageValidator, PageDefaulter, NeverAnswers, PageConversion),
    log,
  );

  it('allows, denies with the webhook message, and returns warnings', async () => {
    const ok = await handler.handle(
      '/validate/validate.pages.example.com',
      JSON.stringify(review(page('<p>x</p>'))),
    );
    expect(ok).toEqual({
      status: 200,
      body: {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: 'u-1', allowed: true },
      },
    });
    const denied = await handler.handle('/validate/validate.pages.example.com', review(page('  ')));
    expect(responseOf(denied)).toEqual({
      uid: 'u-1',
      allowed: false,
      status: { code: 403, message: 'spec.html is blank' },
    });
    const warned = await handler.handle(
      '/validate/validate.pages.example.com',
      review(page('<p>a long page</p>')),
    );
    expect(responseOf(warned)).toEqual({ uid: 'u-1', allowed: true, warnings: ['long page'] });
  });

  it('a handler that throws gets a denial with its message and code 500, never a crash', async () => {
    const a = await handler.handle('/validate/validate.pages.example.com', review(page('boom')));
    expect(a.status).toBe(200);
    expect(responseOf(a)).toEqual({
      uid: 'u-1',
      allowed: false,
      status: { code: 500, message: 'cannot read html' },
    });
    expect(log.warn).toHaveBeenCalledWith(
      'validating webhook "validate.pages.example.com" (PageValidator) threw, request denied: cannot read html',
    );
  });

  it('a malformed review gets a 400 with the reason', async () => {
    const cases: [unknown, string][] = [
      ['{not json', 'malformed review: the body is not JSON'],
      [[], 'malformed review: expected a admission.k8s.io/v1 AdmissionReview object'],
      [
        { apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview' },
        'malformed review: expected apiVersion and kind admission.k8s.io/v1 AdmissionReview (or admission.k8s.io/v1beta1), got "admission.k8s.io/v2" "AdmissionReview"',
      ],
      [
        { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' },
        'malformed review: request is missing',
      ],
      [
        { ...review(page('x')), request: { operation: 'CREATE' } },
        'malformed review: request.uid is missing',
      ],
    ];
    for (const [body, reason] of cases) {
      const a = await handler.handle(
        '/validate/validate.pages.example.com',
        typeof body === 'string' ? body : JSON.stringify(body),
      );
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      expect(String(a.body.message)).toContain(reason);
    }
    const conv = await handler.handle('/convert/pages.example.com', review(page('x')));
    expect(conv.status).toBe(400);
    expect(conv.body.message).toContain(
      'expected apiVersion and kind apiextensions.k8s.io/v1 ConversionReview',
    );
    const none = await handler.handle('/validate/nothing.example.com', review(page('x')));
    expect(none.status).toBe(404);
    expect(none.body.message).toContain(
      'no webhook is served at /validate/nothing.example.com; served paths: /validate/validate.pages.example.com',
    );
  });

  it('a mutating webhook answers the JSON patch between the object and its change', async () => {
    const original = page('<p>x</p>');
    const a = await handler.handle('/mutate/page-defaulter.pages.example.com', review(original));
    const r = responseOf(a);
    expect(r).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    const ops = JSON.parse(Buffer.from(String(r.patch), 'base64').toString('utf8')) as Operation[];
    expect(ops).toEqual([{ op: 'add', path: '/spec/title', value: 'Untitled' }]);
    expect(jsonpatch.applyPatch(structuredClone(original), ops).newDocument.spec).toEqual({
      html: '<p>x</p>',
      title: 'Untitled',
    });
    // nothing to change: no patch
    const same = await handler.handle(
      '/mutate/page-defaulter.pages.example.com',
      review({ ...original, spec: { html: 'x', title: 't' } }),
    );
    expect(responseOf(same)).toEqual({ uid: 'u-1', allowed: true });
  });

  it('a handler slower than its timeoutSeconds is denied at the deadline and reported', async () => {
    jest.useFakeTimers();
    try {
      const pending = handler.handle('/validate/never.pages.example.com', review(page('x')));
      await jest.advanceTimersByTimeAsync(2_000);
      const a = await pending;
      expect(responseOf(a)).toEqual({
        uid: 'u-1',
        allowed: false,
        status: {
          code: 504,
          message: 'never.pages.example.com did not answer within its timeoutSeconds (2s)',
        },
      });
      expect(log.error).toHaveBeenCalledWith(
        'validating webhook "never.pages.example.com" (NeverAnswers) did not answer within its timeoutSeconds (2s) for CREATE pages/p; the API server applied its failurePolicy (Fail)',
      );
    } finally {
      jest.useRealTimers();
    }
  });

  it('converts through the hub in both directions, keeping metadata but labels and annotations', async () => {
    const convert = (desiredAPIVersion: string, objects: unknown[]): Promise<WebhookAnswer> =>
      handler.handle('/convert/pages.example.com', {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'c-1', desiredAPIVersion, objects },
      });
    const up = responseOf(
      await convert('example.com/v2', [{ ...page('<p>a</p>'), metadata: { name: 'p', uid: 'x1' } }]),
    );
    expect(up).toEqual({
      uid: 'c-1',
      result: { status: 'Success' },
      convertedObjects: [
        {
          apiVersion: 'example.com/v2',
          kind: 'Page',
          metadata: { name: 'p', uid: 'x1', labels: { converted: 'yes' } },
          spec: { body: { html: '<p>a</p>' } },
        },
      ],
    });
    const down = responseOf(
      await convert('example.com/v1', [
        {
          apiVersion: 'example.com/v2',
          kind: 'Page',
          metadata: { name: 'q' },
          spec: { body: { html: 'b' } },
        },
      ]),
    );
    expect(down.convertedObjects).toEqual([
      { apiVersion: 'example.com/v1', kind: 'Page', metadata: { name: 'q' }, spec: { html: 'b' } },
    ]);
    const failed = responseOf(
      await convert('example.com/v1', [
        { apiVersion: 'example.com/v2', kind: 'Page', metadata: { name: 'r' }, spec: {} },
      ]),
    );
    expect(failed.result).toMatchObject({ status: 'Failure' });
    expect(failed.convertedObjects).toEqual([]);
  });

  it('decorators refuse options that cannot work, naming the class and the fix', () => {
    expect(() => ValidatingWebhook({ resource: Page, name: 'Not_A_Domain' })(class Bad {})).toThrow(
      new WebhookConfigurationError(
        '@ValidatingWebhook on Bad: name "Not_A_Domain" must be a lower-case domain of at least three labels, e.g. "validate.webpages.example.com"',
      ),
    );
    expect(() => MutatingWebhook({ resource: Page, timeoutSeconds: 31 })(class Slow {})).toThrow(
      'timeoutSeconds 31 must be an integer from 1 to 30',
    );
    expect(() => ValidatingWebhook({ resource: {} as typeof Page })(class NoKind {})).toThrow(
      "'resource' must name group, version, plural and kind",
    );
  });
});
