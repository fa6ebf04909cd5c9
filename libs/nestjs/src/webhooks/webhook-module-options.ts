import type { WebhookTls } from './webhook-tls.js';
import type { WebhookTlsFiles } from './webhook-tls-files.js';

/** Options of `WebhookModule.forRoot`. */
export interface WebhookModuleOptions {
  /** Port of the HTTPS webhook server. Defaults to 9443; 0 picks a free port. */
  port?: number;
  /** Address it listens on. Defaults to `0.0.0.0` (in a pod); tests pass `127.0.0.1`. */
  host?: string;
  /**
   * The serving certificate. Defaults to a development CA and certificate made at start (for
   * 127.0.0.1, ::1, localhost and {@link hosts}); bring your own (e.g. from cert-manager) in a cluster.
   */
  tls?: WebhookTls;
  /**
   * The serving certificate as files (a mounted Secret), read at start and again when they change,
   * so a renewed certificate is served without a restart and {@link tls} is not needed. Defaults to
   * none.
   */
  tlsFiles?: WebhookTlsFiles;
  /** Extra host names or IPs of the development certificate. Defaults to none. */
  hosts?: string[];
  /** Start the HTTPS server. Defaults to true; false serves only through `WebhookController` on the app's own (HTTPS) server. */
  listen?: boolean;
  /**
   * Also mount `WebhookController` (`POST /webhooks/{validate,mutate,convert}/:name`) in the Nest app.
   * Admission reviews of up to 7 MiB and conversion reviews of up to 256 MiB (kube-apiserver sends a
   * whole list in one) reach it whatever the JSON body limit of the app's other routes on Express;
   * on Fastify give the adapter such a `bodyLimit`.
   * Defaults to false.
   */
  controller?: boolean;
}

/** Injection token of the {@link WebhookModuleOptions}. */
export const WEBHOOK_MODULE_OPTIONS = 'tosdk:WebhookModuleOptions';
