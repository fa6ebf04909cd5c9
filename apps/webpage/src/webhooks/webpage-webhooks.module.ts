import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { WebhookModule } from '@tosdk/nestjs/webhooks';
import type { WebhookModuleOptions } from '@tosdk/nestjs/webhooks';
import { WebPageConversion } from './webpage.conversion.js';
import { WebPageValidator } from './webpage.validator.js';

/**
 * The WebPage webhooks: the validating webhook (blank pages refused at admission) and the v1/v2
 * conversion webhook, served over HTTPS by the `WebhookModule`.
 */
@Module({})
export class WebPageWebhooksModule {
  /** The module with the webhook server's options (port 9443 and a development certificate by default). */
  static forRoot(options: WebhookModuleOptions = {}): DynamicModule {
    return {
      module: WebPageWebhooksModule,
      imports: [WebhookModule.forRoot(options)],
      providers: [WebPageValidator, WebPageConversion],
    };
  }
}
