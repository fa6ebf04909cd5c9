import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { ConversionWebhook, MutatingWebhook, ValidatingWebhook } from '../webhook.decorators.js';
import { WebhookConfigurationError } from '../webhook.errors.js';
import {
  crdConversion,
  mutatingWebhookConfiguration,
  validatingWebhookConfiguration,
  webhookDeclarations,
} from '../webhook-manifests.js';

const Page = { group: 'example.com', version: 'v1', plural: 'pages', kind: 'Page' };

@ValidatingWebhook({
  resource: Page,
  operations: ['CREATE'],
  failurePolicy: 'Ignore',
  timeoutSeconds: 3,
  matchPolicy: 'Exact',
  sideEffects: 'NoneOnDryRun',
  namespaceSelector: { matchLabels: { team: 'web' } },
  objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
  scope: 'Namespaced',
})
class PageValidator {}

@MutatingWebhook({ resource: Page, reinvocationPolicy: 'IfNeeded' })
class PageDefaulter {}

@ConversionWebhook({ resource: Page, hub: 'v1' })
class PageConversion {}

class NotAWebhook {}

const decls = webhookDeclarations([PageValidator, PageDefaulter, PageConversion, NotAWebhook]);
const endpoint = { url: 'https://127.0.0.1:9443/', caBundle: 'Q0E=' };

describe('webhook manifests generated from the decorated classes', () => {
  it('ValidatingWebhookConfiguration carries every option, the CA bundle and the URL of the webhook path', () => {
    expect(validatingWebhookConfiguration('pages', decls, endpoint)).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'pages' },
      webhooks: [
        {
          name: 'page-validator.pages.example.com',
          clientConfig: {
            url: 'https://127.0.0.1:9443/validate/page-validator.pages.example.com',
            caBundle: 'Q0E=',
          },
          rules: [
            {
              operations: ['CREATE'],
              apiGroups: ['example.com'],
              apiVersions: ['v1'],
              resources: ['pages'],
              scope: 'Namespaced',
            },
          ],
          admissionReviewVersions: ['v1'],
          sideEffects: 'NoneOnDryRun',
          failurePolicy: 'Ignore',
          matchPolicy: 'Exact',
          timeoutSeconds: 3,
          namespaceSelector: { matchLabels: { team: 'web' } },
          objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
        },
      ],
    });
  });

  it('MutatingWebhookConfiguration has kube defaults and the reinvocation policy; a Service endpoint keeps the path', () => {
    const svc = { service: { namespace: 'ops', name: 'webhooks', port: 443 }, caBundle: 'Q0E=' };
    expect(mutatingWebhookConfiguration('pages', decls, svc).webhooks).toEqual([
      {
        name: 'page-defaulter.pages.example.com',
        clientConfig: {
          service: {
            namespace: 'ops',
            name: 'webhooks',
            port: 443,
            path: '/mutate/page-defaulter.pages.example.com',
          },
          caBundle: 'Q0E=',
        },
        rules: [
          {
            operations: ['CREATE', 'UPDATE'],
            apiGroups: ['example.com'],
            apiVersions: ['v1'],
            resources: ['pages'],
            scope: '*',
          },
        ],
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        reinvocationPolicy: 'IfNeeded',
      },
    ]);
  });

  it("the CRD's conversion stanza points at the conversion webhook; an unknown CRD is a typed error", () => {
    expect(crdConversion('pages.example.com', decls, endpoint)).toEqual({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { url: 'https://127.0.0.1:9443/convert/pages.example.com', caBundle: 'Q0E=' },
      },
    });
    expect(() => crdConversion('books.example.com', decls, endpoint)).toThrow(
      new WebhookConfigurationError(
        'no @ConversionWebhook converts the CRD "books.example.com"; declared: pages.example.com',
      ),
    );
  });
});
