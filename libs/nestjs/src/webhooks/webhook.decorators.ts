import type { V1LabelSelector } from '@kubernetes/client-node';
import type { AdmissionOperation } from './webhook.types.js';
import { WebhookConfigurationError } from './webhook.errors.js';

/** The resource a webhook is for: a core `ResourceType` (`defineResource(...)`) fits. */
export interface WebhookResource {
  /** API group; `''` for the core group. */
  readonly group: string;
  /** The version the webhook's rule names. */
  readonly version: string;
  /** URL plural, e.g. `webpages`. */
  readonly plural: string;
  /** Kind, e.g. `WebPage`. */
  readonly kind: string;
}

/** Options of {@link ValidatingWebhook} and {@link MutatingWebhook}. */
export interface AdmissionWebhookOptions {
  /** The resource the webhook is called for. Required. */
  resource: WebhookResource;
  /** Operations. Defaults to `['CREATE', 'UPDATE']`. */
  operations?: AdmissionOperation[];
  /** API versions the rule names. Defaults to `[resource.version]` (other versions reach it by `matchPolicy: Equivalent`). */
  versions?: string[];
  /**
   * The webhook's name: a domain of at least three labels, shown in every denial. Defaults to
   * `<class name in kebab case>.<plural>.<group>` (`core.k8s.io` for the core group).
   */
  name?: string;
  /** What the API server does when the call fails: `Fail` (default) refuses the write, `Ignore` admits it. */
  failurePolicy?: 'Fail' | 'Ignore';
  /** `Equivalent` (default) also calls the webhook for other versions of the resource; `Exact` does not. */
  matchPolicy?: 'Equivalent' | 'Exact';
  /** `None` (default) or `NoneOnDryRun`: whether calling the webhook has side effects. */
  sideEffects?: 'None' | 'NoneOnDryRun';
  /** Seconds the API server waits for an answer, 1 to 30. Defaults to 10. */
  timeoutSeconds?: number;
  /** Only objects in namespaces with these labels. Defaults to all namespaces. */
  namespaceSelector?: V1LabelSelector;
  /** Only objects with these labels. Defaults to all objects. */
  objectSelector?: V1LabelSelector;
  /** `*` (default), `Namespaced` or `Cluster`. */
  scope?: '*' | 'Namespaced' | 'Cluster';
}

/** Options of {@link MutatingWebhook}. */
export interface MutatingWebhookOptions extends AdmissionWebhookOptions {
  /** `IfNeeded` calls the webhook again when a later webhook changed the object. Defaults to `Never`. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** Options of {@link ConversionWebhook}. */
export interface ConversionWebhookOptions {
  /** The custom resource whose versions are converted (group, plural and kind are used). Required. */
  resource: Omit<WebhookResource, 'version'> & { readonly version?: string };
  /** The hub version every other version converts through. Required. */
  hub: string;
}

/** The declaration of a discovered webhook class, defaults filled. */
export type WebhookDeclaration =
  | { type: 'validating'; name: string; path: string; options: AdmissionWebhookOptions }
  | { type: 'mutating'; name: string; path: string; options: MutatingWebhookOptions }
  | { type: 'conversion'; name: string; path: string; options: ConversionWebhookOptions };

const WEBHOOK_METADATA = 'tosdk:webhook';

const DOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}$/;

function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

function check(className: string, options: AdmissionWebhookOptions, type: string): string {
  const r = options.resource as Partial<WebhookResource> | undefined;
  if (!r || typeof r.plural !== 'string' || typeof r.version !== 'string' || typeof r.group !== 'string') {
    throw new WebhookConfigurationError(
      `@${type}Webhook on ${className}: 'resource' must name group, version, plural and kind (pass the kind's defineResource(...) value)`,
    );
  }
  const name = options.name ?? `${kebab(className)}.${r.plural}.${r.group === '' ? 'core.k8s.io' : r.group}`;
  if (!DOMAIN.test(name)) {
    throw new WebhookConfigurationError(
      `@${type}Webhook on ${className}: name "${name}" must be a lower-case domain of at least three labels, e.g. "validate.webpages.example.com"`,
    );
  }
  const t = options.timeoutSeconds;
  if (t !== undefined && (!Number.isInteger(t) || t < 1 || t > 30)) {
    throw new WebhookConfigurationError(
      `@${type}Webhook on ${className}: timeoutSeconds ${String(t)} must be an integer from 1 to 30`,
    );
  }
  return name;
}

/**
 * Marks a provider implementing `Validator` as a validating admission webhook. The
 * `WebhookModule` discovers it in any module and serves it at `/validate/<name>`.
 *
 * ```ts
 * @ValidatingWebhook({ resource: WebPage })
 * export class WebPageValidator implements Validator<WebPage> {
 *   validate({ object }: AdmissionRequest<WebPage>) {
 *     if (!object?.spec.html.trim()) throw new AdmissionDeniedError('spec.html is blank');
 *   }
 * }
 * ```
 * @throws WebhookConfigurationError when the options cannot be used.
 */
export function ValidatingWebhook(options: AdmissionWebhookOptions): ClassDecorator {
  return (target) => {
    const name = check(target.name, options, 'Validating');
    const decl: WebhookDeclaration = { type: 'validating', name, path: `/validate/${name}`, options };
    Reflect.defineMetadata(WEBHOOK_METADATA, decl, target);
  };
}

/**
 * Marks a provider implementing `Mutator` as a mutating admission webhook, served at `/mutate/<name>`.
 * @throws WebhookConfigurationError when the options cannot be used.
 */
export function MutatingWebhook(options: MutatingWebhookOptions): ClassDecorator {
  return (target) => {
    const name = check(target.name, options, 'Mutating');
    const decl: WebhookDeclaration = { type: 'mutating', name, path: `/mutate/${name}`, options };
    Reflect.defineMetadata(WEBHOOK_METADATA, decl, target);
  };
}

/**
 * Marks a provider implementing `Converter` (hub and spoke) as the conversion webhook of a custom
 * resource, served at `/convert/<plural>.<group>`.
 * @throws WebhookConfigurationError when the options cannot be used.
 */
export function ConversionWebhook(options: ConversionWebhookOptions): ClassDecorator {
  return (target) => {
    const r = options.resource as Partial<WebhookResource> | undefined;
    if (
      !r ||
      typeof r.plural !== 'string' ||
      !r.group ||
      typeof options.hub !== 'string' ||
      options.hub === ''
    ) {
      throw new WebhookConfigurationError(
        `@ConversionWebhook on ${target.name}: 'resource' must name a custom resource's group, plural and kind, and 'hub' its hub version`,
      );
    }
    const name = `${r.plural}.${r.group}`;
    const decl: WebhookDeclaration = { type: 'conversion', name, path: `/convert/${name}`, options };
    Reflect.defineMetadata(WEBHOOK_METADATA, decl, target);
  };
}

/** The webhook declaration of a class, or undefined when it carries none. */
export function getWebhookDeclaration(target: unknown): WebhookDeclaration | undefined {
  if (typeof target !== 'function') return undefined;
  return Reflect.getMetadata(WEBHOOK_METADATA, target) as WebhookDeclaration | undefined;
}
