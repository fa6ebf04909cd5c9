import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { getWebhookDeclaration } from './webhook.decorators.js';
import { WebhookConfigurationError } from './webhook.errors.js';
import type { DiscoveredWebhook } from './webhook-review.handler.js';

const METHOD = { validating: 'validate', mutating: 'mutate', conversion: 'toHub' } as const;

/** Finds `@ValidatingWebhook`, `@MutatingWebhook` and `@ConversionWebhook` providers in every module. */
@Injectable()
export class WebhookExplorer {
  constructor(private readonly discovery: DiscoveryService) {}

  /**
   * The webhook providers, each once.
   * @throws WebhookConfigurationError for a provider without the method its decorator needs, a
   * request-scoped or transient one, or two webhooks on one path.
   */
  webhooks(): DiscoveredWebhook[] {
    const found = new Map<string, DiscoveredWebhook>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const type = instance.constructor;
      const declaration = getWebhookDeclaration(type);
      if (!declaration) continue;
      const className = (type as { name: string }).name;
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
        // Nest constructs such a provider per request or per consumer, never the instance held here
        throw new WebhookConfigurationError(
          `${className} is a ${declaration.type} webhook but ${wrapper.isTransient ? 'transient' : 'request-scoped (itself or through a dependency)'}: the webhook server answers every review with one instance, so make it and its dependencies singletons (the default scope) and resolve per-request needs inside its method`,
        );
      }
      const method = METHOD[declaration.type];
      if (
        typeof instance[method] !== 'function' ||
        (declaration.type === 'conversion' && typeof instance.fromHub !== 'function')
      ) {
        throw new WebhookConfigurationError(
          `${className} is a ${declaration.type} webhook but has no ${declaration.type === 'conversion' ? 'toHub and fromHub methods' : `${method} method`}`,
        );
      }
      const other = found.get(declaration.path);
      if (other && other.instance !== instance) {
        throw new WebhookConfigurationError(
          `${className} and ${other.className} are both served at ${declaration.path}: give one of them another name`,
        );
      }
      found.set(declaration.path, { declaration, instance, className });
    }
    return [...found.values()];
  }
}
