import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeApiServer, KubeApiServerOptions } from '@tosdk/apiserver';
import { KubernetesApiError, KubernetesClient, ResourceID, ResourceTypes } from '@tosdk/core';
import type { KubernetesResource, ResourceType } from '@tosdk/core';
import { loadClientNodeKubeConfig } from '../config/kube-config.loader.js';
import { applyCrds, loadCrds } from './crd-loader.js';
import { importOptionalPeer } from './optional-peer.js';
import type { CrdSource } from './crd-loader.js';
import { waitFor, WaitForTimeoutError } from './wait-for.js';
import type { WaitForOptions } from './wait-for.js';

/** What each environment closes first when it stops: the testing modules still open on it. */
const openModules = new WeakMap<OperatorTestEnvironment, Set<() => Promise<void>>>();

/**
 * Registers `close` to run when `environment` stops (a testing module made on it); returns the
 * function that unregisters it (call it first in `close`). Internal: not exported from the entry point.
 */
export function closeWithEnvironment(
  environment: OperatorTestEnvironment,
  close: () => Promise<void>,
): () => void {
  let set = openModules.get(environment);
  if (!set) openModules.set(environment, (set = new Set()));
  set.add(close);
  return () => set.delete(close);
}

/** The variable that makes tests run against the cluster of `KUBECONFIG` instead of an in-process server. */
export const USE_EXISTING_CLUSTER_VARIABLE = 'TOSDK_TEST_USE_EXISTING_CLUSTER';

/** Options of {@link OperatorTestEnvironment.start}. */
export interface OperatorTestEnvironmentOptions {
  /** CRDs to apply and wait for (Established): YAML/JSON files, directories of them, or objects (see `loadCrds`). Defaults to none. */
  crds?: readonly CrdSource[];
  /** Use the cluster of `KUBECONFIG`. Defaults to `TOSDK_TEST_USE_EXISTING_CLUSTER=true`. */
  useExistingCluster?: boolean;
  /** Options of the in-process API server (port 0, 127.0.0.1 whatever is given). Defaults to the server's. */
  server?: Omit<KubeApiServerOptions, 'host'>;
  /** The environment to read. Defaults to `process.env`. */
  environment?: Record<string, string | undefined>;
}

/**
 * Where an operator test runs: an in-process `@tosdk/apiserver` (never the user's cluster, whatever
 * `KUBECONFIG` says) or, opted in, the cluster of `KUBECONFIG`; an admin client; the CRDs applied;
 * and namespaces made per test. Async-disposable: `await using env = await
 * OperatorTestEnvironment.start()` stops it when the block is left.
 */
export class OperatorTestEnvironment implements AsyncDisposable {
  private readonly namespaces: string[] = [];
  /** Fires at {@link stop}: the waits still running give up at once. */
  private readonly stopping = new AbortController();

  private constructor(
    /** The in-process server; undefined against an existing cluster. */
    readonly server: KubeApiServer | undefined,
    /** The KubeConfig of the environment (admin user). */
    readonly kubeConfig: KubeConfig,
    /** A client for the test itself, beside the operator's own. */
    readonly adminClient: KubernetesClient,
  ) {}

  /** Starts the server (or connects to the existing cluster) and applies the CRDs. */
  static async start(options: OperatorTestEnvironmentOptions = {}): Promise<OperatorTestEnvironment> {
    const env = options.environment ?? process.env;
    const existing =
      options.useExistingCluster ?? env[USE_EXISTING_CLUSTER_VARIABLE]?.toLowerCase() === 'true';
    // @tosdk/apiserver is an optional peer (a dev dependency): not needed against an existing cluster
    const server = existing
      ? undefined
      : await (
          await importOptionalPeer(
            '@tosdk/apiserver',
            'OperatorTestEnvironment (@tosdk/nestjs/testing)',
            () => import('@tosdk/apiserver'),
          )
        ).KubeApiServer.start({ ...options.server, port: 0, host: '127.0.0.1' });
    const kubeConfig = server ? server.kubeConfig() : loadClientNodeKubeConfig(env);
    const environment = new OperatorTestEnvironment(
      server,
      kubeConfig,
      KubernetesClient.fromKubeConfig(kubeConfig),
    );
    try {
      if (options.crds?.length) await applyCrds(environment.adminClient, await loadCrds(options.crds));
    } catch (error) {
      await environment.stop();
      throw error;
    }
    return environment;
  }

  /** A new namespace (`<prefix>-<random>`), deleted by {@link stop}. */
  async createNamespace(prefix = 'tosdk-test'): Promise<string> {
    const name = `${prefix}-${randomBytes(4).toString('hex')}`;
    await this.adminClient.create(ResourceTypes.Namespace, { metadata: { name } });
    this.namespaces.push(name);
    return name;
  }

  /** Deletes a namespace made by {@link createNamespace} (best effort). */
  async deleteNamespace(name: string): Promise<void> {
    const i = this.namespaces.indexOf(name);
    if (i >= 0) this.namespaces.splice(i, 1);
    try {
      await this.adminClient.delete(ResourceTypes.Namespace, new ResourceID(name));
    } catch {
      // already gone or the server is stopping
    }
  }

  /**
   * Polls until the object exists and `predicate` holds; returns it. On timeout the
   * `WaitForTimeoutError` says whether the object never appeared or appeared without the condition
   * holding (with its last resourceVersion), or that the server does not serve the kind (its CRD is
   * not applied). Rejects with a `WaitForAbortedError` when
   * `options.signal` fires or the environment stops first.
   */
  async waitForResource<T extends KubernetesResource>(
    type: ResourceType<T>,
    id: ResourceID,
    predicate: (resource: T) => boolean = () => true,
    options: WaitForOptions = {},
  ): Promise<T> {
    let last: T | undefined;
    const what = `${type.kind} ${id.key}`;
    const signal = this.signalFor(options);
    try {
      return await waitFor(
        async () => {
          const r = await this.adminClient.get(type, id, { signal });
          if (r !== undefined) last = r;
          return r !== undefined && predicate(r) ? r : undefined;
        },
        {
          description: () =>
            last === undefined
              ? `${what} did not appear`
              : `${what} appeared (last seen at resourceVersion ${last.metadata?.resourceVersion ?? '?'}) but the condition did not hold`,
          ...options,
          signal,
        },
      );
    } catch (error) {
      // a get answers 404 for an unknown kind as for a missing object: tell them apart at the end
      if (error instanceof WaitForTimeoutError && last === undefined && (await this.notServed(type, id))) {
        const served = `${type.group ? `${type.plural}.${type.group}` : type.plural}/${type.version}`;
        throw new WaitForTimeoutError(
          `${error.message}: the API server does not serve ${served}; apply its CustomResourceDefinition first (the crds option)`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** Whether the server answers 404 to a list of the kind (it does not serve it), not to one object. */
  private async notServed(type: ResourceType, id: ResourceID): Promise<boolean> {
    try {
      await this.adminClient.list(type, { namespace: id.namespace, limit: 1 });
      return false;
    } catch (error) {
      return error instanceof KubernetesApiError && error.isNotFound();
    }
  }

  /**
   * Polls until the object is gone; rejects at once when `options.signal` fires or the environment
   * stops. On timeout the `WaitForTimeoutError` says what still holds the object: its finalizers
   * (with its deletionTimestamp), or that nothing deleted it.
   */
  async waitForDeletion(type: ResourceType, id: ResourceID, options: WaitForOptions = {}): Promise<void> {
    const signal = this.signalFor(options);
    let last: KubernetesResource | undefined;
    const what = `${type.kind} ${id.key}`;
    await waitFor(
      async () => {
        last = await this.adminClient.get(type, id, { signal });
        return last === undefined;
      },
      {
        description: () => (last === undefined ? `deletion of ${what} did not hold` : stillThere(what, last)),
        ...options,
        signal,
      },
    );
  }

  /** The wait's own signal joined with the environment's stop. */
  private signalFor(options: WaitForOptions): AbortSignal {
    return options.signal ? AbortSignal.any([options.signal, this.stopping.signal]) : this.stopping.signal;
  }

  /**
   * Closes the testing modules still open on it (as their `close()` does), deletes the namespaces
   * made here, closes the admin client and stops the server; the waits of this environment still
   * running reject with a `WaitForAbortedError`. Idempotent. Rejects with the first module's close
   * error, after stopping everything.
   */
  async stop(): Promise<void> {
    if (!this.stopping.signal.aborted)
      this.stopping.abort(new Error('the test environment was stopped (stop())'));
    // a module left open would keep its operator retrying against the stopped server
    const failures: unknown[] = [];
    for (const close of [...(openModules.get(this) ?? [])]) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    // the in-process server's state goes with it; a real cluster needs its namespaces deleted
    if (!this.server) for (const ns of [...this.namespaces]) await this.deleteNamespace(ns);
    if (!this.adminClient.isClosed) this.adminClient.close();
    await this.server?.stop();
    if (failures.length > 0)
      throw failures[0] instanceof Error ? failures[0] : new Error(String(failures[0]));
  }

  /** {@link stop}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

/** Why an object awaited to be gone is still there, for the timeout message. */
function stillThere(what: string, resource: KubernetesResource): string {
  const m = resource.metadata ?? {};
  const at = `still there at resourceVersion ${m.resourceVersion ?? '?'}`;
  if (!m.deletionTimestamp)
    return `${what} was not deleted (${at}, no deletionTimestamp: nothing deleted it)`;
  const finalizers = m.finalizers?.length ? `, finalizers [${m.finalizers.join(', ')}] not removed` : '';
  // typed as a Date by client-node's model; the JSON read gives the RFC 3339 text
  const since: unknown = m.deletionTimestamp;
  const when = since instanceof Date ? since.toISOString() : typeof since === 'string' ? since : '?';
  return `${what} was not deleted (${at}, deletionTimestamp ${when}${finalizers})`;
}
