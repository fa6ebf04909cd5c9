import { KubeConfig } from '@kubernetes/client-node';
import type { ResourceType } from '@tosdk/core';

/** The application, loaded without starting it (see {@link TosdkConfig.app}). */
export type AppLoader =
  /** A function that builds the app's `Operator` and registers its controllers (it must not call `start()`). */
  | { operator: () => unknown }
  /** A Nest module (or a dynamic module) importing the `OperatorModule`; an application context is created and closed. */
  | { nestModule: () => unknown };

/** How the operator's Deployment looks (`tosdk generate manifests` and `helm`). */
export interface DeploymentConfig {
  /** Container image, e.g. `ghcr.io/acme/my-operator:0.1.0`. */
  image: string;
  /**
   * Replicas; above 1 turns leader election on ({@link leaderElectionEnv}) unless the app is sharded.
   * In the Helm chart it is the default of the `replicas` value, and the value given at install
   * decides leader election. Defaults to 1.
   */
  replicas?: number;
  /** The HTTP port of the health endpoints (named `http`). Defaults to 8080. */
  port?: number;
  /** Liveness probe path. Defaults to `/health/liveness`. */
  livenessPath?: string;
  /** Readiness probe path. Defaults to `/health/readiness`. */
  readinessPath?: string;
  /**
   * The longest the container may take to start serving the liveness endpoint before the kubelet
   * restarts it: the startup probe (on the liveness path, every 5 s) allows this many seconds, and the
   * liveness and readiness probes wait for it. A Nest app listens only once the operator has started,
   * which waits for every informer's first list (core's `cacheSyncTimeoutMs`, 120 s by default); raise
   * this with that timeout. Defaults to 180.
   */
  startupSeconds?: number;
  /** Environment of the container. Defaults to none. */
  env?: Record<string, string>;
  /**
   * Environment added when leader election is on (replicas > 1 without sharding, or
   * `leaderElection` configured), turning the app's leader election on; in the Helm chart, rendered
   * when the `replicas` value is above 1. Defaults to none.
   */
  leaderElectionEnv?: Record<string, string>;
  /** Container resources. Defaults to requests of 50m CPU and 96Mi memory, a 256Mi memory limit. */
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  /** The user id the container runs as (non-root). Defaults to 1000. */
  runAsUser?: number;
}

/**
 * The app's admission and conversion webhooks (`tosdk generate webhooks`, and the `conversion` of the
 * CRDs they convert in `crds` and `helm`), served in the cluster behind a Service in front of the
 * operator's pods.
 *
 * ```js
 * webhooks: {
 *   classes: async () => {
 *     const { PageValidator } = await import('./dist/page.validator.js');
 *     const { PageConversion } = await import('./dist/page.conversion.js');
 *     return [PageValidator, PageConversion];
 *   },
 *   caBundle: { certManager: 'my-operator-system/my-operator-webhooks' },
 * }
 * ```
 */
export interface WebhooksConfig {
  /**
   * Loads the classes decorated with `@ValidatingWebhook`, `@MutatingWebhook` or `@ConversionWebhook`
   * (from `@tosdk/nestjs/webhooks`, which must be installed); their declarations are turned into
   * the configuration objects by that package's functions.
   */
  classes: () => unknown[] | Promise<unknown[]>;
  /**
   * The Service in front of the webhook server, in {@link TosdkConfig.namespace}, selecting the
   * operator's pods by {@link TosdkConfig.labels}. Defaults: name `<name>-webhooks`, port 443,
   * targetPort 9443 (the `WebhookModule`'s default port).
   */
  service?: { name?: string; port?: number; targetPort?: number };
  /**
   * How the API server learns the CA of the webhook server's certificate: `file`, a PEM file (relative
   * to the config file) inlined as `caBundle`; or `certManager`, `<namespace>/<Certificate>` written as
   * the `cert-manager.io/inject-ca-from` annotation so cert-manager's CA injector fills `caBundle` in.
   * Defaults to neither: `caBundle` is left empty for an injector configured otherwise.
   */
  caBundle?: { file: string } | { certManager: string };
}

/**
 * The `tosdk` configuration (`tosdk.config.mjs` beside `package.json`, default export): what the
 * operator is called, where it runs, how to load it and where the generated files go.
 *
 * ```js
 * import { defineConfig } from '@tosdk/cli';
 * export default defineConfig({
 *   name: 'my-operator',
 *   namespace: 'my-operator-system',
 *   app: { nestModule: async () => (await import('./dist/app.module.js')).AppModule },
 *   deployment: { image: 'ghcr.io/acme/my-operator:0.1.0' },
 *   output: { crds: 'deploy/crds.yaml', rbac: 'deploy/rbac.yaml', manifests: 'deploy', helm: 'chart' },
 * });
 * ```
 */
export interface TosdkConfig {
  /** Name of the ServiceAccount, roles, bindings and Deployment, e.g. `webpage-operator`. */
  name: string;
  /** Namespace the operator runs in (its ServiceAccount, Deployment and lease). */
  namespace: string;
  /** Loads the app: its controllers are registered, nothing connects. */
  app: AppLoader;
  /** Kinds whose CRDs to write besides the ones the controllers use. Defaults to none. */
  resources?: ResourceType[];
  /**
   * Leader election: a Role for leases in `leaseNamespace` (else {@link namespace}) is generated (get
   * and update restricted to `leaseName` when given). An app whose Operator is built with
   * `leaderElection` gets that Role without this, for its lease name and namespace. Defaults to on
   * when `deployment.replicas > 1`, else off.
   */
  leaderElection?: { leaseName?: string; leaseNamespace?: string };
  /**
   * Sharding (`Operator` option `sharding`, or `TOSDK_SHARDING=true` at run time, which the
   * generator cannot see when it loads the app): a Role for the membership Leases in
   * `leaseNamespace` is generated (get, list, watch, create, update, delete on leases), and
   * `deployment.replicas > 1` no longer means leader election. An app whose Operator is built with
   * `sharding` gets that Role without this. Defaults to off.
   */
  sharding?: { leaseNamespace?: string };
  /** The app's webhooks. Defaults to none (no `webhooks` file, CRDs without `conversion`). */
  webhooks?: WebhooksConfig;
  /** The Deployment. Required for `manifests` and `helm`. */
  deployment?: DeploymentConfig;
  /** Where generated files go, relative to the config file's directory. */
  output: {
    /** A `.yaml` file (all CRDs) or a directory (one file per CRD). Defaults to `deploy/crds`. */
    crds?: string;
    /** The RBAC file. Defaults to `deploy/rbac.yaml`. */
    rbac?: string;
    /** Directory of `namespace.yaml` and `operator.yaml`. Defaults to `deploy`. */
    manifests?: string;
    /** Directory of the Helm chart. Defaults to `chart`. */
    helm?: string;
    /**
     * The file of the webhooks' Service and configurations (with {@link TosdkConfig.webhooks}).
     * Defaults to `deploy/webhooks.yaml`.
     */
    webhooks?: string;
  };
  /** Labels on every generated object. Defaults to `app.kubernetes.io/name: <name>`. */
  labels?: Record<string, string>;
}

/** Types a configuration (identity at run time). */
export function defineConfig(config: TosdkConfig): TosdkConfig {
  return config;
}

/**
 * A KubeConfig pointing at a port nothing listens on (`https://127.0.0.1:9`), for apps whose module
 * wants one while `tosdk generate` loads them: the CLI never starts the operator, so it is never used.
 */
export function offlineKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'offline', server: 'https://127.0.0.1:9', skipTLSVerify: true }],
    users: [{ name: 'offline', token: 'offline' }],
    contexts: [{ name: 'offline', cluster: 'offline', user: 'offline', namespace: 'default' }],
    currentContext: 'offline',
  });
  return kc;
}
