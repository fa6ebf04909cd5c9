/**
 * The cluster objects that make the API server call the webhooks: the
 * `ValidatingWebhookConfiguration`, the `MutatingWebhookConfiguration` and a CRD's `conversion`
 * stanza, generated from the decorated classes. Plain functions (no Nest needed), so a CLI such as
 * `tosdk generate` can call them on the classes alone.
 */
import type {
  V1CustomResourceConversion,
  V1MutatingWebhook,
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhook,
  V1ValidatingWebhookConfiguration,
  AdmissionregistrationV1WebhookClientConfig,
} from '@kubernetes/client-node';
import type { AdmissionWebhookOptions, WebhookDeclaration } from './webhook.decorators.js';
import { getWebhookDeclaration } from './webhook.decorators.js';
import { WebhookConfigurationError } from './webhook.errors.js';

/** Where the API server reaches the webhook server. */
export type WebhookEndpoint =
  | {
      /** Base URL, e.g. `https://127.0.0.1:9443`; each webhook's path is appended. */
      url: string;
      /** Base64 of the PEM CA that signed the serving certificate. Defaults to none (system CAs). */
      caBundle?: string;
    }
  | {
      /**
       * A Service in the cluster in front of the webhook server; `path` is prepended to each
       * webhook's path (`/webhooks` for `WebhookController`, with the app's global prefix before
       * it). Defaults: port 443 (kube's), no path prefix.
       */
      service: { namespace: string; name: string; port?: number; path?: string };
      /** Base64 of the PEM CA that signed the serving certificate. */
      caBundle?: string;
    };

/** The webhook declarations of classes (those without a webhook decorator are skipped). */
export function webhookDeclarations(classes: readonly unknown[]): WebhookDeclaration[] {
  return classes.map(getWebhookDeclaration).filter((d): d is WebhookDeclaration => d !== undefined);
}

function clientConfig(endpoint: WebhookEndpoint, path: string): AdmissionregistrationV1WebhookClientConfig {
  const cc: AdmissionregistrationV1WebhookClientConfig =
    'url' in endpoint
      ? { url: `${endpoint.url.replace(/\/$/, '')}${path}` }
      : {
          service: {
            ...endpoint.service,
            path: `${(endpoint.service.path ?? '').replace(/\/$/, '')}${path}`,
          },
        };
  if (endpoint.caBundle !== undefined) cc.caBundle = endpoint.caBundle;
  return cc;
}

function common(
  decl: WebhookDeclaration & { options: AdmissionWebhookOptions },
  endpoint: WebhookEndpoint,
): V1ValidatingWebhook {
  const o = decl.options;
  const hook: V1ValidatingWebhook = {
    name: decl.name,
    clientConfig: clientConfig(endpoint, decl.path),
    rules: [
      {
        operations: o.operations ?? ['CREATE', 'UPDATE'],
        apiGroups: [o.resource.group],
        apiVersions: o.versions ?? [o.resource.version],
        resources: [o.resource.plural],
        scope: o.scope ?? '*',
      },
    ],
    admissionReviewVersions: ['v1'],
    sideEffects: o.sideEffects ?? 'None',
    failurePolicy: o.failurePolicy ?? 'Fail',
    matchPolicy: o.matchPolicy ?? 'Equivalent',
    timeoutSeconds: o.timeoutSeconds ?? 10,
  };
  if (o.namespaceSelector) hook.namespaceSelector = o.namespaceSelector;
  if (o.objectSelector) hook.objectSelector = o.objectSelector;
  return hook;
}

/** The `ValidatingWebhookConfiguration` named `name` for the validating webhooks among `declarations`. */
export function validatingWebhookConfiguration(
  name: string,
  declarations: readonly WebhookDeclaration[],
  endpoint: WebhookEndpoint,
): V1ValidatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: declarations.flatMap((d) => (d.type === 'validating' ? [common(d, endpoint)] : [])),
  };
}

/** The `MutatingWebhookConfiguration` named `name` for the mutating webhooks among `declarations`. */
export function mutatingWebhookConfiguration(
  name: string,
  declarations: readonly WebhookDeclaration[],
  endpoint: WebhookEndpoint,
): V1MutatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name },
    webhooks: declarations.flatMap((d): V1MutatingWebhook[] =>
      d.type === 'mutating'
        ? [{ ...common(d, endpoint), reinvocationPolicy: d.options.reinvocationPolicy ?? 'Never' }]
        : [],
    ),
  };
}

/**
 * The `spec.conversion` of the CRD `<plural>.<group>` (strategy Webhook) for its conversion webhook.
 * @throws WebhookConfigurationError when no declaration converts that CRD.
 */
export function crdConversion(
  crdName: string,
  declarations: readonly WebhookDeclaration[],
  endpoint: WebhookEndpoint,
): V1CustomResourceConversion {
  const decl = declarations.find((d) => d.type === 'conversion' && d.name === crdName);
  if (!decl) {
    const known = declarations.filter((d) => d.type === 'conversion').map((d) => d.name);
    throw new WebhookConfigurationError(
      `no @ConversionWebhook converts the CRD "${crdName}"; declared: ${known.join(', ') || 'none'}`,
    );
  }
  return {
    strategy: 'Webhook',
    webhook: { conversionReviewVersions: ['v1'], clientConfig: clientConfig(endpoint, decl.path) },
  };
}
