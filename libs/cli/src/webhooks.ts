import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { GeneratedCustomResourceDefinition } from '@tosdk/core';
import type { TosdkConfig, WebhooksConfig } from './config.js';
import { TosdkCliError } from './errors.js';
import type { Manifest } from './rbac.js';

/** Where the API server reaches the webhook server (the shape `@tosdk/nestjs/webhooks` takes). */
interface ServiceEndpoint {
  service: { namespace: string; name: string; port: number };
  caBundle?: string;
}

/** What `tosdk generate` uses of `@tosdk/nestjs/webhooks` (loaded when a config declares webhooks). */
interface WebhookManifestFunctions {
  webhookDeclarations(classes: readonly unknown[]): Array<{ type: string; name: string }>;
  validatingWebhookConfiguration(name: string, declarations: unknown[], endpoint: ServiceEndpoint): Manifest;
  mutatingWebhookConfiguration(name: string, declarations: unknown[], endpoint: ServiceEndpoint): Manifest;
  crdConversion(crdName: string, declarations: unknown[], endpoint: ServiceEndpoint): object;
}

/** The webhooks of an app as `tosdk generate` writes them. */
export interface WebhookModel {
  /** The Service in front of the webhook server. */
  readonly service: Manifest;
  /** The admission configurations that have at least one webhook. */
  readonly configurations: readonly Manifest[];
  /** The annotations of every object the API server calls (a CA injector's instruction). */
  readonly annotations: Readonly<Record<string, string>>;
  /** The `spec.conversion` of a CRD by its name, when a conversion webhook converts it. */
  conversion(crdName: string): object | undefined;
}

const WEBHOOKS_MODULE = '@tosdk/nestjs/webhooks';

async function manifestFunctions(config: TosdkConfig): Promise<WebhookManifestFunctions> {
  try {
    // a variable specifier: @tosdk/cli does not depend on @tosdk/nestjs; an app with webhooks has it
    const specifier = WEBHOOKS_MODULE;
    return (await import(specifier)) as WebhookManifestFunctions;
  } catch (error) {
    throw new TosdkCliError(
      'InvalidConfig',
      `tosdk config of ${config.name}: webhooks are declared but ${WEBHOOKS_MODULE} cannot be loaded (${(error as Error).message}); install @tosdk/nestjs in the app`,
      { cause: error },
    );
  }
}

/** The defaults of {@link WebhooksConfig} filled in. */
export function webhookSettings(config: TosdkConfig, webhooks: WebhooksConfig) {
  return {
    serviceName: webhooks.service?.name ?? `${config.name}-webhooks`,
    port: webhooks.service?.port ?? 443,
    targetPort: webhooks.service?.targetPort ?? 9443,
  };
}

/**
 * The webhooks of the config's `webhooks` (undefined without one): the declarations of its classes
 * turned into configurations by the functions of `@tosdk/nestjs/webhooks`, against a Service in the
 * operator's namespace.
 *
 * @throws TosdkCliError `InvalidConfig` when the classes cannot be loaded, declare no webhook, or the
 *   CA bundle file cannot be read.
 */
export async function loadWebhooks(config: TosdkConfig, baseDir: string): Promise<WebhookModel | undefined> {
  const webhooks = config.webhooks;
  if (!webhooks) return undefined;
  const fns = await manifestFunctions(config);
  let classes: unknown[];
  try {
    classes = await webhooks.classes();
  } catch (error) {
    throw new TosdkCliError(
      'InvalidConfig',
      `tosdk config of ${config.name}: webhooks.classes() failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const declarations = fns.webhookDeclarations(classes);
  if (declarations.length === 0) {
    throw new TosdkCliError(
      'InvalidConfig',
      `tosdk config of ${config.name}: webhooks.classes() returned no class decorated with @ValidatingWebhook, @MutatingWebhook or @ConversionWebhook`,
    );
  }
  const s = webhookSettings(config, webhooks);
  const endpoint: ServiceEndpoint = {
    service: { namespace: config.namespace, name: s.serviceName, port: s.port },
  };
  const annotations: Record<string, string> = {};
  const ca = webhooks.caBundle;
  if (ca && 'file' in ca) {
    const path = resolve(baseDir, ca.file);
    const pem = await readFile(path, 'utf8').catch((error: unknown) => {
      throw new TosdkCliError(
        'InvalidConfig',
        `tosdk config of ${config.name}: webhooks.caBundle.file ${path} cannot be read (${(error as Error).message}); point it at the PEM of the CA that signs the webhook server's certificate`,
        { cause: error },
      );
    });
    endpoint.caBundle = Buffer.from(pem).toString('base64');
  } else if (ca && 'certManager' in ca) {
    annotations['cert-manager.io/inject-ca-from'] = ca.certManager;
  }
  const labels = config.labels ?? { 'app.kubernetes.io/name': config.name };
  const annotate = (m: Manifest): Manifest =>
    Object.keys(annotations).length === 0
      ? m
      : { ...m, metadata: { ...m.metadata, annotations: { ...annotations } } as Manifest['metadata'] };
  const configurations = [
    fns.validatingWebhookConfiguration(config.name, declarations, endpoint),
    fns.mutatingWebhookConfiguration(config.name, declarations, endpoint),
  ]
    .filter((c) => ((c['webhooks'] as unknown[] | undefined) ?? []).length > 0)
    .map((c) => annotate({ ...c, metadata: { ...c.metadata, labels } }));
  return {
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: s.serviceName, namespace: config.namespace, labels },
      spec: {
        selector: labels,
        ports: [{ name: 'webhooks', port: s.port, targetPort: s.targetPort, protocol: 'TCP' }],
      },
    },
    configurations,
    annotations,
    conversion: (crdName) =>
      declarations.some((d) => d.type === 'conversion' && d.name === crdName)
        ? fns.crdConversion(crdName, declarations, endpoint)
        : undefined,
  };
}

/**
 * The CRDs with the conversion stanza (and the CA injector's annotations) of the CRDs a conversion
 * webhook converts. A CRD of one version is left alone: nothing is ever converted, and the API server
 * would not need the webhook server to serve it.
 */
export function withConversion(
  crds: readonly GeneratedCustomResourceDefinition[],
  webhooks: WebhookModel | undefined,
): GeneratedCustomResourceDefinition[] {
  return crds.map((crd) => {
    const conversion = webhooks?.conversion(crd.metadata.name);
    if (!webhooks || !conversion || crd.spec.versions.length < 2) return crd;
    const metadata = Object.keys(webhooks.annotations).length
      ? { ...crd.metadata, annotations: { ...webhooks.annotations } }
      : crd.metadata;
    return { ...crd, metadata, spec: { ...crd.spec, conversion } } as GeneratedCustomResourceDefinition;
  });
}
