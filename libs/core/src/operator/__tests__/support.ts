import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import type { KubeApiServerOptions } from '@tosdk/apiserver';
import type { CustomResource, KubernetesResource, ResourceType } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import type { OperatorOptions } from '../../config/operator-configuration.js';
import { consoleLogger } from '../../util/logger.js';
import { Operator } from '../operator.js';

/** The test kind: `Widget` in `test.tosdk.io`, namespaced, with status subresource. */
export type Widget = CustomResource<
  { value?: string; size?: number },
  { observed?: string; observedGeneration?: number; count?: number; message?: string; extra?: string }
>;
export const Widget = defineResource<Widget>({ group: 'test.tosdk.io', version: 'v1', kind: 'Widget' });
/** A cluster-scoped kind. */
export type Gadget = CustomResource<{ value?: string }, { observed?: string }>;
export const Gadget = defineResource<Gadget>({
  group: 'test.tosdk.io',
  version: 'v1',
  kind: 'Gadget',
  scope: 'Cluster',
});

const CRD = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

const openObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

function crdOf(type: ResourceType): KubernetesResource {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${type.plural}.${type.group}` },
    spec: {
      group: type.group,
      scope: type.namespaced ? 'Namespaced' : 'Cluster',
      names: {
        plural: type.plural,
        singular: type.kind.toLowerCase(),
        kind: type.kind,
        listKind: `${type.kind}List`,
      },
      versions: [
        {
          name: type.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: { type: 'object', properties: { spec: openObject, status: openObject } },
          },
        },
      ],
    },
  } as KubernetesResource;
}

/** Polls `condition` every 10 ms until it holds or `timeoutMs` passes (then throws with `what`). */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A server (with `options`, e.g. RBAC and users) serving the test CRDs, and an admin client. */
export async function startServer(
  options: KubeApiServerOptions = {},
): Promise<{ server: KubeApiServer; client: KubernetesClient }> {
  const server = await KubeApiServer.start(options);
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  for (const type of [Widget, Gadget]) await client.create(CRD, crdOf(type));
  await waitFor(async () => {
    const list = await client
      .request<{ resources?: Array<{ name?: string }> }>('/apis/test.tosdk.io/v1')
      .catch(() => undefined);
    return (list?.resources?.length ?? 0) >= 2;
  }, 'CRDs served');
  return { server, client };
}

let seq = 0;
/** A fresh namespace for one test. */
export async function newNamespace(client: KubernetesClient): Promise<string> {
  const name = `t${process.pid}-${++seq}`;
  await client.create(defineResource({ group: '', version: 'v1', kind: 'Namespace', scope: 'Cluster' }), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  return name;
}

/** A widget object. */
export function widget(name: string, namespace: string, spec: Widget['spec'] = { value: 'a' }): Widget {
  return { apiVersion: Widget.apiVersion, kind: Widget.kind, metadata: { name, namespace }, spec };
}

/** What a {@link RecordingReconciler} saw in one run. */
export interface RunRecord {
  name: string;
  value?: string;
  generation?: number;
  resourceVersion?: string;
  status?: Widget['status'];
  finalizers?: string[];
  retry?: { attemptCount: number; isLastAttempt: boolean };
  imminent: boolean;
}

type Behaviour = (
  resource: Widget,
  context: import('../../api/context.js').Context<Widget>,
  run: number,
) =>
  | import('../../api/controls.js').UpdateControl<Widget>
  | Promise<import('../../api/controls.js').UpdateControl<Widget>>;

/** A reconciler that records every run and delegates to a replaceable behaviour (default: no update). */
export class RecordingReconciler {
  runs: RunRecord[] = [];
  active = 0;
  maxActive = 0;
  constructor(public behaviour?: Behaviour) {}

  async reconcile(
    resource: Widget,
    context: import('../../api/context.js').Context<Widget>,
  ): Promise<import('../../api/controls.js').UpdateControl<Widget>> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    this.runs.push({
      name: resource.metadata!.name!,
      value: resource.spec?.value,
      generation: resource.metadata?.generation,
      resourceVersion: resource.metadata?.resourceVersion,
      status: resource.status,
      finalizers: resource.metadata?.finalizers,
      retry: context.getRetryInfo(),
      imminent: context.isNextReconciliationImminent(),
    });
    try {
      const { UpdateControl } = await import('../../api/controls.js');
      return this.behaviour
        ? await this.behaviour(resource, context, this.runs.length)
        : UpdateControl.noUpdate();
    } finally {
      this.active--;
    }
  }

  /** Runs of one resource. */
  of(name: string): RunRecord[] {
    return this.runs.filter((r) => r.name === name);
  }
}

/** A promise with its resolve function. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** One API server shared by the tests of a file, see {@link apiServerSuite}. */
export interface ApiServerSuite {
  /** The server (available from `beforeAll` on). */
  readonly server: KubeApiServer;
  /** A client of the server's admin user. */
  readonly admin: KubernetesClient;
  /** Operators stopped after each test (those made by {@link ApiServerSuite.operator} are added). */
  readonly operators: Operator[];
  /**
   * An operator on the admin's kubeConfig (logging to the console at debug level when
   * `TOSDK_TEST_LOG` is set), stopped after the test.
   */
  operator(options?: Partial<OperatorOptions>): Operator;
}

/**
 * Registers the hooks every API-server suite of core repeats: start a server with the test CRDs
 * (Widget, Gadget) before all tests, clear its faults and stop the test's operators after each,
 * close the admin client and stop the server after all. Call it once at the top level of a file.
 */
export function apiServerSuite(options: KubeApiServerOptions = {}): ApiServerSuite {
  let server: KubeApiServer | undefined;
  let admin: KubernetesClient | undefined;
  const operators: Operator[] = [];
  beforeAll(async () => {
    ({ server, client: admin } = await startServer(options));
  });
  afterEach(async () => {
    server?.faults.clear();
    await Promise.all(operators.splice(0).map((o) => o.stop()));
  });
  afterAll(async () => {
    admin?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('the API server is not started yet: use it inside a test or hook');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get admin() {
      return started(admin);
    },
    operators,
    operator(more: Partial<OperatorOptions> = {}) {
      const op = new Operator({
        kubeConfig: started(server).kubeConfig(),
        logger: process.env.TOSDK_TEST_LOG ? consoleLogger('debug') : undefined,
        ...more,
      });
      operators.push(op);
      return op;
    },
  };
}
