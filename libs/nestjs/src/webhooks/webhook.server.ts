import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type {
  V1CustomResourceConversion,
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { WEBHOOK_MODULE_OPTIONS } from './webhook-module-options.js';
import type { WebhookModuleOptions } from './webhook-module-options.js';
import type { WebhookDeclaration } from './webhook.decorators.js';
import { WebhookConfigurationError } from './webhook.errors.js';
import { WebhookExplorer } from './webhook.explorer.js';
import {
  crdConversion,
  mutatingWebhookConfiguration,
  validatingWebhookConfiguration,
} from './webhook-manifests.js';
import type { WebhookEndpoint } from './webhook-manifests.js';
import { WebhookReviewHandler } from './webhook-review.handler.js';
import { maxReviewBytes, readReviewBody, tooLargeMessage } from './webhook-body.js';
import { developmentWebhookTls } from './webhook-tls.js';
import { readWebhookTlsFiles, watchWebhookTlsFiles } from './webhook-tls-files.js';
import type { WebhookTls } from './webhook-tls.js';

/**
 * The webhook server: discovers the webhook providers when the application boots, serves them over
 * HTTPS, and generates the configuration objects that point the API server at them. Inject it to
 * read {@link url} and {@link caBundle} or to get the manifests to apply.
 */
@Injectable()
export class WebhookServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private server: Server | undefined;
  private tls: WebhookTls | undefined;
  private reviewHandler: WebhookReviewHandler | undefined;
  private declared: WebhookDeclaration[] = [];
  private stopWatching: (() => void) | undefined;
  private closing = false;

  constructor(
    private readonly explorer: WebhookExplorer,
    @Inject(WEBHOOK_MODULE_OPTIONS) private readonly options: WebhookModuleOptions,
  ) {}

  /**
   * Discovers the webhook providers, reads the certificate files (and watches them) or makes the
   * development certificate when none is given, and starts the HTTPS server.
   * @throws WebhookConfigurationError when a provider lacks its method, the certificate files cannot
   * be read or served, or the port cannot be bound.
   */
  async onApplicationBootstrap(): Promise<void> {
    const webhooks = this.explorer.webhooks();
    this.declared = webhooks.map((w) => w.declaration);
    this.reviewHandler = new WebhookReviewHandler(webhooks, {
      warn: (m) => this.logger.warn(m),
      error: (m) => this.logger.error(m),
    });
    const files = this.options.tlsFiles;
    if (files && this.options.tls)
      throw new WebhookConfigurationError(
        'WebhookModule.forRoot: give the serving certificate as tls or as tlsFiles, not both',
      );
    this.tls = files
      ? await readWebhookTlsFiles(files)
      : (this.options.tls ?? (await developmentWebhookTls(this.options.hosts)));
    if (this.options.listen === false) return this.watchTlsFiles();
    const handler = this.reviewHandler;
    const server = createServer({ cert: this.tls.certPem, key: this.tls.keyPem }, (req, res) => {
      const path = new URL(req.url ?? '/', 'https://webhook').pathname;
      const limit = maxReviewBytes(path);
      readReviewBody(req, limit).then(
        ({ text, tooLarge }) => {
          const reply = (status: number, body: unknown): void => {
            const text = JSON.stringify(body);
            res.writeHead(status, {
              'Content-Type': 'application/json',
              'Content-Length': Buffer.byteLength(text),
              // a server shutting down lets the API server open its next call elsewhere
              ...(this.closing ? { Connection: 'close' } : {}),
            });
            res.end(text);
          };
          if (req.method !== 'POST') return reply(405, { message: 'webhooks accept POST only' });
          if (tooLarge) return reply(413, { message: tooLargeMessage(limit) });
          handler.handle(path, text).then(
            (a) => reply(a.status, a.body),
            (e: unknown) => reply(500, { message: e instanceof Error ? e.message : String(e) }),
          );
        },
        () => req.socket.destroy(),
      );
    });
    server.on('clientError', (_e, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e) =>
        reject(
          new WebhookConfigurationError(
            `the webhook server cannot listen on ${this.options.host ?? '0.0.0.0'}:${this.options.port ?? 9443}: ${e.message}`,
            { cause: e },
          ),
        ),
      );
      server.listen(this.options.port ?? 9443, this.options.host ?? '0.0.0.0', () => resolve());
    });
    this.server = server;
    this.logger.log(`serving ${this.declared.length} webhook(s) at ${this.url}: ${handler.paths.join(', ')}`);
    this.watchTlsFiles();
  }

  /** With `tlsFiles`: serves the certificate files again each time they change. */
  private watchTlsFiles(): void {
    const files = this.options.tlsFiles;
    if (!files || !this.tls) return;
    this.stopWatching = watchWebhookTlsFiles(
      files,
      this.tls,
      (tls) => {
        this.tls = tls;
        this.server?.setSecureContext({ cert: tls.certPem, key: tls.keyPem });
        this.logger.log(`serving the renewed certificate ${files.certFile}`);
      },
      (e) => this.logger.warn(`${e.message}; the current certificate is served until they can be read`),
    );
  }

  /**
   * Stops accepting connections and closes the idle ones, lets the reviews in flight be answered
   * (for at most the longest webhook timeout, after which the API server has given up on them), then
   * closes the rest.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopWatching?.();
    this.stopWatching = undefined;
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    this.closing = true;
    const closed = new Promise<void>((r) => s.close(() => r()));
    s.closeIdleConnections();
    const longest = Math.max(
      0,
      ...this.declared.map((d) => (d.type === 'conversion' ? 30 : (d.options.timeoutSeconds ?? 10))),
    );
    const timer = setTimeout(() => s.closeAllConnections(), longest * 1000 + 1000);
    timer.unref();
    try {
      await closed;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The review handler (what `WebhookController` and the HTTPS server call). */
  get handler(): WebhookReviewHandler {
    if (!this.reviewHandler)
      throw new WebhookConfigurationError('the webhook server is used before the application has booted');
    return this.reviewHandler;
  }

  /** The port the HTTPS server listens on. */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? this.options.port ?? 9443;
  }

  /** `https://<host>:<port>` of the HTTPS server (`127.0.0.1` when it listens on every address). */
  get url(): string {
    const host = this.options.host ?? '0.0.0.0';
    const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    // an IPv6 address is bracketed in a URL
    return `https://${reachable.includes(':') ? `[${reachable}]` : reachable}:${this.port}`;
  }

  /** Base64 of the PEM CA of the serving certificate: the `caBundle` of the configurations. */
  get caBundle(): string {
    if (!this.tls)
      throw new WebhookConfigurationError(
        'the webhook server has no certificate before the application has booted',
      );
    return Buffer.from(this.tls.caPem ?? this.tls.certPem).toString('base64');
  }

  /** The webhook declarations served. */
  get declarations(): readonly WebhookDeclaration[] {
    return this.declared;
  }

  /**
   * Where the API server reaches this server: {@link url} and {@link caBundle}, unless `endpoint`
   * says otherwise.
   * @throws WebhookConfigurationError without `endpoint` when the HTTPS server does not listen
   * (`listen: false`): nothing serves that URL nor that certificate.
   */
  endpoint(endpoint?: WebhookEndpoint): WebhookEndpoint {
    if (endpoint) return endpoint;
    if (this.options.listen === false)
      throw new WebhookConfigurationError(
        `the webhook server does not listen (WebhookModule.forRoot({ listen: false })), so the API server cannot reach it at its own URL: pass the endpoint of the application's HTTPS server, e.g. { url: 'https://<host>:<port>/webhooks', caBundle: '<base64 of its CA>' } (a Service: { service: { namespace, name, port, path: '/webhooks' }, caBundle })`,
      );
    return { url: this.url, caBundle: this.caBundle };
  }

  /** The `ValidatingWebhookConfiguration` (named `name`) of the served validating webhooks. */
  validatingConfiguration(name: string, endpoint?: WebhookEndpoint): V1ValidatingWebhookConfiguration {
    return validatingWebhookConfiguration(name, this.declared, this.endpoint(endpoint));
  }

  /** The `MutatingWebhookConfiguration` (named `name`) of the served mutating webhooks. */
  mutatingConfiguration(name: string, endpoint?: WebhookEndpoint): V1MutatingWebhookConfiguration {
    return mutatingWebhookConfiguration(name, this.declared, this.endpoint(endpoint));
  }

  /** The `spec.conversion` stanza of the CRD `crdName` (`<plural>.<group>`). */
  conversion(crdName: string, endpoint?: WebhookEndpoint): V1CustomResourceConversion {
    return crdConversion(crdName, this.declared, this.endpoint(endpoint));
  }
}
