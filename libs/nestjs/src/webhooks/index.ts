/**
 * `@tosdk/nestjs/webhooks`: admission (validating, mutating) and conversion webhooks as Nest
 * providers, served over HTTPS, with the configuration objects that point the API server at them.
 *
 * @packageDocumentation
 */
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionVerdict,
  Converter,
  GroupVersionKind,
  Mutator,
  Validator,
} from './webhook.types.js';
export { AdmissionDeniedError, ConversionFailedError, WebhookConfigurationError } from './webhook.errors.js';
export {
  ConversionWebhook,
  MutatingWebhook,
  ValidatingWebhook,
  getWebhookDeclaration,
} from './webhook.decorators.js';
export type {
  AdmissionWebhookOptions,
  ConversionWebhookOptions,
  MutatingWebhookOptions,
  WebhookDeclaration,
  WebhookResource,
} from './webhook.decorators.js';
export {
  crdConversion,
  mutatingWebhookConfiguration,
  validatingWebhookConfiguration,
  webhookDeclarations,
} from './webhook-manifests.js';
export type { WebhookEndpoint } from './webhook-manifests.js';
export { WebhookReviewHandler } from './webhook-review.handler.js';
export type { DiscoveredWebhook, WebhookAnswer, WebhookEventLog } from './webhook-review.handler.js';
export { developmentWebhookTls } from './webhook-tls.js';
export type { WebhookTls } from './webhook-tls.js';
export { readWebhookTlsFiles } from './webhook-tls-files.js';
export type { WebhookTlsFiles } from './webhook-tls-files.js';
export { WebhookModule } from './webhook.module.js';
export { WEBHOOK_MODULE_OPTIONS } from './webhook-module-options.js';
export type { WebhookModuleOptions } from './webhook-module-options.js';
export { WebhookServer } from './webhook.server.js';
export { WebhookController } from './webhook.controller.js';
