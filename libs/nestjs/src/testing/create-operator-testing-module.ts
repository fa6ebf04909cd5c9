import { ConsoleLogger } from '@nestjs/common';
import type { INestApplication, INestApplicationContext, LogLevel, ModuleMetadata } from '@nestjs/common';
import type { TestingModule, TestingModuleBuilder } from '@nestjs/testing';
import { KubernetesClient, Operator, ResourceID } from '@tosdk/core';
import type { KubernetesResource, ResourceType } from '@tosdk/core';
import { OperatorModuleConfigurationError } from '../errors.js';
import { OperatorMetricsHub } from '../metrics/operator-metrics-hub.js';
import { KUBE_CONFIG } from '../operator.constants.js';
import { OperatorModule } from '../operator.module.js';
import { moduleClient, RESOLVED_OPERATOR_OPTIONS } from '../operator.providers.js';
import type { OperatorModuleOptions } from '../operator-module-options.js';
import { applyCrds, loadCrds } from './crd-loader.js';
import { NamespaceRestrictionOverrider } from './namespace-restriction.overrider.js';
import { importOptionalPeer } from './optional-peer.js';
import { closeWithEnvironment, OperatorTestEnvironment } from './operator-test-environment.js';
import type { OperatorTestEnvironmentOptions } from './operator-test-environment.js';
import type { WaitForOptions } from './wait-for.js';

/** Options of {@link createOperatorTestingModule}. */
export interface OperatorTestingModuleOptions
  extends Omit<OperatorTestEnvironmentOptions, 'environment'>, Pick<ModuleMetadata, 'imports' | 'providers'> {
  /**
   * Add `OperatorModule.forRoot(operator)` to the imports (for feature modules without it). Defaults
   * to none: `imports` must then contain the OperatorModule (e.g. the app's root module).
   */
  operator?: OperatorModuleOptions;
  /**
   * A running environment to reuse; not stopped by `close()`; `crds` are applied to it too (created,
   * or replaced when they exist). Defaults to a new one started here.
   */
  testEnvironment?: OperatorTestEnvironment;
  /** Restrict every namespaced controller to the test's namespace. Defaults to true. */
  restrictToNamespace?: boolean;
  /** Serve HTTP on 127.0.0.1 (random port) for health and metrics. Defaults to false (an application context). */
  http?: boolean;
  /**
   * Levels of Nest's console logger in the test (Nest's testing logger would print errors only, hiding
   * the framework's warnings). Defaults to `['error', 'warn']`; `configure` may set another logger
   * (`builder.setLogger(...)`), `configureApp` may route to nestjs-pino (`app.useLogger(...)`).
   */
  logLevels?: LogLevel[];
  /** Changes the testing module before compiling (more overrides). */
  configure?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /** Changes the application before init/listen (e.g. `app.useLogger(...)`). */
  configureApp?: (app: INestApplication | INestApplicationContext) => void | Promise<void>;
}

/**
 * What {@link createOperatorTestingModule} gives a test. Async-disposable: `await using t = await
 * createOperatorTestingModule(...)` closes it when the block is left, a failing test included.
 */
export interface OperatorTestingContext extends AsyncDisposable {
  /** The compiled testing module. */
  readonly module: TestingModule;
  /** The initialised application (HTTP with `http: true`). */
  readonly app: INestApplication | INestApplicationContext;
  /** `http://127.0.0.1:<port>` with `http: true`. */
  readonly url: string | undefined;
  /** The test's own namespace. */
  readonly namespace: string;
  /** The environment (server, KubeConfig, admin client). */
  readonly environment: OperatorTestEnvironment;
  /** A client for the test, beside the operator's own. */
  readonly adminClient: KubernetesClient;
  /** The operator of the app. */
  readonly operator: Operator;
  /** Polls until the object (in the test namespace unless `namespace` is given) exists and `predicate` holds. */
  waitForResource<T extends KubernetesResource>(
    type: ResourceType<T>,
    name: string,
    predicate?: (resource: T) => boolean,
    options?: WaitForOptions & { namespace?: string },
  ): Promise<T>;
  /** Polls until the object is gone. */
  waitForDeletion(
    type: ResourceType,
    name: string,
    options?: WaitForOptions & { namespace?: string },
  ): Promise<void>;
  /**
   * Closes the app (stops the operator), deletes the namespace and stops an environment made here;
   * waits of this context still running reject with a `WaitForAbortedError`. A second call waits for
   * the first. A shared `testEnvironment`'s `stop()` closes a context left open.
   */
  close(): Promise<void>;
}

/**
 * JOSDK's mock-operator test support for Nest (`@EnableMockOperator`): compiles the app's modules
 * against an in-process API server (or, with `TOSDK_TEST_USE_EXISTING_CLUSTER=true`, the cluster of
 * `KUBECONFIG`), with the operator's KubeConfig and client replaced, so it never reaches the user's
 * cluster by accident; applies the CRDs, gives the test its own namespace, restricts controllers to
 * it and starts the app. Needs the dev dependencies `@nestjs/testing` and `@tosdk/apiserver`
 * (optional peers; a {@link MissingPeerDependencyError} names a missing one).
 *
 * ```ts
 * const t = await createOperatorTestingModule({ imports: [AppModule], crds: ['deploy/crd.yaml'] });
 * await t.adminClient.create(WebPage, { metadata: { name: 'a', namespace: t.namespace }, spec });
 * await t.waitForResource(ResourceTypes.ConfigMap, 'a');
 * await t.close();
 * ```
 */
export async function createOperatorTestingModule(
  options: OperatorTestingModuleOptions,
): Promise<OperatorTestingContext> {
  // @nestjs/testing is an optional peer: loaded here so loadCrds, applyCrds and waitFor import without it
  const { Test } = await importOptionalPeer(
    '@nestjs/testing',
    'createOperatorTestingModule (@tosdk/nestjs/testing)',
    () => import('@nestjs/testing'),
  );
  const owned = !options.testEnvironment;
  const environment = options.testEnvironment ?? (await OperatorTestEnvironment.start(options));
  let app: INestApplication | INestApplicationContext | undefined;
  let namespace: string | undefined;
  let operatorClient: KubernetesClient | undefined;
  try {
    // a new environment applied them at start; a shared one gets this test's CRDs now
    if (!owned && options.crds?.length) {
      await applyCrds(environment.adminClient, await loadCrds(options.crds));
    }
    namespace = await environment.createNamespace();
    let builder = Test.createTestingModule({
      imports: [
        ...(options.imports ?? []),
        ...(options.operator ? [OperatorModule.forRoot(options.operator)] : []),
      ],
      providers: [
        ...(options.providers ?? []),
        ...(options.restrictToNamespace === false
          ? []
          : [
              {
                provide: NamespaceRestrictionOverrider,
                useValue: new NamespaceRestrictionOverrider(namespace),
              },
            ]),
      ],
    })
      .overrideProvider(KUBE_CONFIG)
      .useValue(environment.kubeConfig)
      .overrideProvider(KubernetesClient)
      .useFactory({
        inject: [RESOLVED_OPERATOR_OPTIONS, OperatorMetricsHub],
        // built as the module builds its own (operator.providers.ts), on the environment's KubeConfig:
        // the app's clientOptions and its retry metrics apply in tests too; a client the app gave
        // (forRoot's client) is replaced, so the test never reaches its cluster
        factory: (resolved: OperatorModuleOptions, hub: OperatorMetricsHub): KubernetesClient => {
          operatorClient = moduleClient(resolved, environment.kubeConfig, hub);
          return operatorClient;
        },
      })
      .setLogger(new ConsoleLogger('tosdk-test', { logLevels: options.logLevels ?? ['error', 'warn'] }));
    if (options.configure) builder = options.configure(builder);
    const module = await builder.compile();
    try {
      module.get(Operator, { strict: false });
    } catch (error) {
      throw new OperatorModuleConfigurationError(
        'createOperatorTestingModule: the testing module has no OperatorModule; put the module that imports ' +
          'OperatorModule.forRoot or forRootAsync (usually the app root module) in imports, or pass the option ' +
          'operator to add OperatorModule.forRoot(operator)',
        { cause: error },
      );
    }
    let url: string | undefined;
    if (options.http) {
      const http = module.createNestApplication();
      app = http;
      await options.configureApp?.(http);
      await http.listen(0, '127.0.0.1');
      url = (await http.getUrl()).replace('[::1]', '127.0.0.1');
    } else {
      app = module;
      await options.configureApp?.(module);
      await module.init();
    }
    const ns = namespace;
    const running = app;
    // fires at close(): the context's waits still running give up at once
    const closing = new AbortController();
    const signalFor = (o: WaitForOptions): AbortSignal =>
      o.signal ? AbortSignal.any([o.signal, closing.signal]) : closing.signal;
    const operator = module.get(Operator);
    const client = operatorClient;
    let closed: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closed ??= (async () => {
        forget();
        closing.abort(new Error('the testing module was closed (close())'));
        try {
          await running.close();
        } finally {
          if (client && !client.isClosed) client.close();
          if (owned) await environment.stop();
          else await environment.deleteNamespace(ns);
        }
      })();
      return closed;
    };
    // a shared environment's stop() closes a module its test left open
    const forget = owned ? () => undefined : closeWithEnvironment(environment, close);
    return {
      module,
      app: running,
      url,
      namespace: ns,
      environment,
      adminClient: environment.adminClient,
      operator,
      waitForResource: (type, name, predicate, o = {}) =>
        environment.waitForResource(
          type,
          new ResourceID(name, type.namespaced ? (o.namespace ?? ns) : undefined),
          predicate,
          { ...o, signal: signalFor(o) },
        ),
      waitForDeletion: (type, name, o = {}) =>
        environment.waitForDeletion(
          type,
          new ResourceID(name, type.namespaced ? (o.namespace ?? ns) : undefined),
          { ...o, signal: signalFor(o) },
        ),
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    if (operatorClient && !operatorClient.isClosed) operatorClient.close();
    if (owned) await environment.stop();
    else if (namespace) await environment.deleteNamespace(namespace);
    throw error;
  }
}
