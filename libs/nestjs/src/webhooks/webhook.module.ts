import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { WEBHOOK_MODULE_OPTIONS } from './webhook-module-options.js';
import type { WebhookModuleOptions } from './webhook-module-options.js';
import { WebhookRouteBody } from './webhook-body.js';
import { WebhookController } from './webhook.controller.js';
import { WebhookExplorer } from './webhook.explorer.js';
import { WebhookServer } from './webhook.server.js';

/**
 * Serves the application's `@ValidatingWebhook`, `@MutatingWebhook` and `@ConversionWebhook`
 * providers (discovered in any module) over HTTPS, and exports {@link WebhookServer}.
 *
 * ```ts
 * @Module({ imports: [WebhookModule.forRoot({ port: 9443 })], providers: [WebPageValidator] })
 * export class AppModule {}
 * ```
 */
@Module({})
export class WebhookModule {
  /** The module with `options` (every option has a default). */
  static forRoot(options: WebhookModuleOptions = {}): DynamicModule {
    return {
      module: WebhookModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        { provide: WEBHOOK_MODULE_OPTIONS, useValue: options },
        WebhookExplorer,
        WebhookServer,
        // large reviews reach the controller past the app's JSON body limit
        ...(options.controller === true ? [WebhookRouteBody] : []),
      ],
      controllers: options.controller === true ? [WebhookController] : [],
      exports: [WebhookServer],
    };
  }
}
