// The chaos workload shared by the chaos test (test/chaos.e2e-spec.ts), `npm run bench -- chaos` and
// the soak (bench/soak.ts): an operator keeps one ConfigMap child per custom resource (`Chaos`,
// group chaos.tosdk.io) and reports the value it wrote in the status; a driver creates N resources,
// updates all of them and deletes 20%, while the API server's fault injection fails a fraction of
// all writes with 500/429, drops every watch every few seconds, expires watch history (410), restarts
// once, and the operator is replaced by a new instance mid-run. Only public APIs of @tosdk/core and
// @tosdk/apiserver are used. Every loop is bounded in count and time.
import { KubeApiServer } from '@tosdk/apiserver';
import type { KubeApiServerOptions, RateFault } from '@tosdk/apiserver';
import {
  defineResource,
  DeleteControl,
  KubernetesApiError,
  KubernetesClient,
  KubernetesTransportError,
  Operator,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type { Cleaner, Context, CustomResource, KubernetesResource, Reconciler } from '@tosdk/core';

/** The workload's custom resource: its `value` is copied into a child ConfigMap and the status. */
export type Chaos = CustomResource<{ value: string }, { observed?: string }>;
export const Chaos = defineResource<Chaos>({ group: 'chaos.tosdk.io', version: 'v1', kind: 'Chaos' });

const CRD = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

const FIELD_MANAGER = 'chaos-operator';
const WRITE_VERBS = ['create', 'update', 'patch', 'delete'];

/** The child ConfigMap's name for a resource. */
export function childName(name: string): string {
  return `${name}-child`;
}

/**
 * What the reconciler saw, shared by every operator instance of a run: reconciles (and cleanups)
 * in flight per resource, overlaps (a reconcile of a resource starting while another one of the
 * same resource runs, in any instance), and the resources whose cleanup completed.
 */
export class ChaosProbe {
  readonly inFlight = new Set<string>();
  readonly cleaned = new Set<string>();
  overlaps = 0;
  readonly overlapping: string[] = [];
  reconciles = 0;
  cleanups = 0;

  /** Runs `work` for a resource, counting an overlap when another run of it is in flight. */
  async track<T>(key: string, work: () => Promise<T>): Promise<T> {
    const mine = !this.inFlight.has(key);
    if (mine) this.inFlight.add(key);
    else {
      this.overlaps++;
      if (this.overlapping.length < 20) this.overlapping.push(key);
    }
    try {
      return await work();
    } finally {
      if (mine) this.inFlight.delete(key);
    }
  }
}

/** Keeps `<name>-child` with `data.value = spec.value` and reports the value in `status.observed`. */
export class ChaosReconciler implements Reconciler<Chaos>, Cleaner<Chaos> {
  constructor(private readonly probe: ChaosProbe) {}

  reconcile(resource: Chaos, context: Context<Chaos>): Promise<UpdateControl<Chaos>> {
    const { name, namespace, uid } = resource.metadata!;
    return this.probe.track(`${namespace}/${name}`, async () => {
      this.probe.reconciles++;
      await context.client.apply(
        ResourceTypes.ConfigMap,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: childName(name!),
            namespace,
            ownerReferences: [
              { apiVersion: Chaos.apiVersion, kind: Chaos.kind, name: name!, uid: uid!, controller: true },
            ],
          },
          data: { value: resource.spec!.value },
        },
        { fieldManager: FIELD_MANAGER, force: true },
      );
      resource.status = { observed: resource.spec!.value };
      return UpdateControl.patchStatus(resource);
    });
  }

  cleanup(resource: Chaos, context: Context<Chaos>): Promise<DeleteControl> {
    const { name, namespace } = resource.metadata!;
    const key = `${namespace}/${name}`;
    return this.probe.track(key, async () => {
      this.probe.cleanups++;
      // delete resolves (undefined) when the child is already gone
      await context.client.delete(ResourceTypes.ConfigMap, new ResourceID(childName(name!), namespace));
      this.probe.cleaned.add(key);
      return DeleteControl.defaultDelete();
    });
  }
}

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  /** Custom resources created. */
  resources: number;
  /** Inject the faults (else the same workload runs fault-free, as the baseline). */
  faults: boolean;
  /** Fraction of writes (create, update, patch, delete) failed with 500 or 429. Defaults to 0.09. */
  writeFailureRate?: number;
  /** Seed of the failure choice. Defaults to 18. */
  seed?: number;
  /** Interval of dropping every watch. Defaults to 1,500 ms. */
  watchDropEveryMs?: number;
  /** How long each phase may take to converge before the run gives up. Defaults to 120,000 ms. */
  phaseTimeoutMs?: number;
  /** Requests the driver sends at once. Defaults to 20. */
  driverConcurrency?: number;
  /** Let the operator's client retry transient failures itself. Defaults to true (the client's default). */
  clientRetry?: boolean;
  /** Progress lines. Defaults to none. */
  log?: (line: string) => void;
}

/** The outcome of {@link runChaos}. */
export interface ChaosReport {
  faults: boolean;
  resources: number;
  /** Resources deleted (every fifth). */
  deleted: number;
  /** Remaining resources whose status and child match their final spec. */
  converged: number;
  /** Remaining resources (all should converge). */
  remaining: number;
  /** Names of remaining resources that did not converge (at most 20). */
  unconverged: string[];
  /** Reconciles or cleanups of one resource that ran at the same time (any operator instance). */
  overlaps: number;
  overlapping: string[];
  /** Deleted resources without a completed cleanup, or still present, or whose child remains. */
  lostDeletes: number;
  lost: string[];
  /** Unhandled promise rejections seen in the process during the run. */
  unhandledRejections: number;
  /** From the first create to the end of the last convergence. */
  durationMs: number;
  reconciles: number;
  cleanups: number;
  injectedFailures: number;
  watchDrops: number;
  compactions: number;
  restarts: number;
  operatorsStarted: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function transient(error: unknown): boolean {
  if (error instanceof KubernetesTransportError) return true;
  return error instanceof KubernetesApiError && [429, 500, 502, 503, 504].includes(error.status);
}

/** The driver's own writes also meet the injected faults: it retries them (bounded). */
async function persist<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 40 || !transient(error)) throw error;
      await sleep(Math.min(1000, 25 * attempt));
    }
  }
}

/** Runs `work` over `items` with at most `limit` at once. */
async function pool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  });
  await Promise.all(runners);
}

function crd(): KubernetesResource {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${Chaos.plural}.${Chaos.group}` },
    spec: {
      group: Chaos.group,
      scope: 'Namespaced',
      names: { plural: Chaos.plural, singular: 'chaos', kind: Chaos.kind, listKind: 'ChaosList' },
      versions: [
        {
          name: Chaos.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
        },
      ],
    },
  } as KubernetesResource;
}

/** A server with the Chaos CRD served and a namespace, and an admin client. */
export async function startChaosServer(
  namespace: string,
  serverOptions: KubeApiServerOptions = {},
): Promise<{ server: KubeApiServer; admin: KubernetesClient }> {
  const server = await KubeApiServer.start(serverOptions);
  const admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
  await admin.create(CRD, crd());
  await admin.create(ResourceTypes.Namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  const deadline = Date.now() + 30_000;
  while ((await admin.list(Chaos, { namespace }).catch(() => undefined)) === undefined) {
    if (Date.now() > deadline) throw new Error('the Chaos CRD was not served within 30 s');
    await sleep(20);
  }
  return { server, admin };
}

/** Starts an operator running the chaos reconciler in `namespace` (fast, long-lived retries). */
export async function startChaosOperator(
  server: KubeApiServer,
  namespace: string,
  probe: ChaosProbe,
  clientRetry = true,
): Promise<Operator> {
  const operator = new Operator({
    kubeConfig: server.kubeConfig(),
    terminationTimeoutMs: 60_000,
    // without the client's own retries every transient failure costs a reconcile retry
    ...(clientRetry ? {} : { clientOptions: { retry: false } }),
  });
  operator.register(new ChaosReconciler(probe), {
    resourceType: Chaos,
    name: 'chaos',
    namespaces: [namespace],
    // a failed reconcile is retried soon and for long enough that no resource runs out of attempts
    // under the injected failure rate (the default gives up after 5 attempts)
    retry: { maxAttempts: 100, initialInterval: 500, intervalMultiplier: 1.5, maxInterval: 4000 },
  });
  await operator.start();
  return operator;
}

/** Where the resources stand: which remaining ones converged, which deleted ones are lost. */
export async function chaosState(
  admin: KubernetesClient,
  namespace: string,
  expected: ReadonlyMap<string, string>,
  deleted: readonly string[],
  probe: ChaosProbe,
): Promise<{ converged: number; unconverged: string[]; lost: string[] }> {
  const [primaries, children] = await Promise.all([
    admin.list(Chaos, { namespace }),
    admin.list(ResourceTypes.ConfigMap, { namespace }),
  ]);
  const byName = new Map(primaries.items.map((p) => [p.metadata!.name!, p]));
  const childByName = new Map(children.items.map((c) => [c.metadata!.name!, c]));
  const unconverged: string[] = [];
  let converged = 0;
  for (const [name, value] of expected) {
    const p = byName.get(name);
    const child = childByName.get(childName(name));
    const ok =
      p !== undefined &&
      p.spec?.value === value &&
      p.status?.observed === value &&
      child?.data?.value === value &&
      child.metadata?.ownerReferences?.[0]?.uid === p.metadata?.uid;
    if (ok) converged++;
    else unconverged.push(name);
  }
  const lost = deleted.filter(
    (name) =>
      !probe.cleaned.has(`${namespace}/${name}`) || byName.has(name) || childByName.has(childName(name)),
  );
  return { converged, unconverged, lost };
}

/** Runs the chaos workload once (fault-free when `faults` is false) and reports what it saw. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? ((): void => undefined);
  const n = options.resources;
  const phaseTimeoutMs = options.phaseTimeoutMs ?? 120_000;
  const concurrency = options.driverConcurrency ?? 20;
  const namespace = 'chaos';
  const probe = new ChaosProbe();
  let unhandled = 0;
  const onUnhandled = (): void => {
    unhandled++;
  };
  process.on('unhandledRejection', onUnhandled);

  const { server, admin } = await startChaosServer(namespace);
  const operators: Operator[] = [];
  let writeFault: RateFault | undefined;
  let dropTimer: NodeJS.Timeout | undefined;
  let watchDrops = 0;
  let compactions = 0;
  let restarts = 0;
  try {
    operators.push(await startChaosOperator(server, namespace, probe, options.clientRetry ?? true));
    if (options.faults) {
      writeFault = server.faults.failRate({
        verbs: WRITE_VERBS,
        rate: options.writeFailureRate ?? 0.09,
        code: [500, 429],
        seed: options.seed ?? 18,
        retryAfterSeconds: 1,
      });
      const every = options.watchDropEveryMs ?? 1500;
      const maxDrops = Math.ceil((4 * phaseTimeoutMs) / every);
      dropTimer = setInterval(() => {
        if (watchDrops >= maxDrops) return;
        watchDrops++;
        server.faults.closeAllWatches();
      }, every);
    }
    const names = Array.from({ length: n }, (_, i) => `c-${String(i).padStart(5, '0')}`);
    const expected = new Map<string, string>();
    const deleted: string[] = [];

    const waitConverged = async (phase: string): Promise<void> => {
      const deadline = Date.now() + phaseTimeoutMs;
      for (;;) {
        const state = await chaosState(admin, namespace, expected, deleted, probe).catch((error: unknown) => {
          if (transient(error)) return undefined;
          throw error;
        });
        if (state === undefined) {
          await sleep(200);
          continue;
        }
        const lost = deleted.length > 0 ? state.lost.length : 0;
        if (state.converged === expected.size && lost === 0) {
          log(`${phase}: ${state.converged}/${expected.size} converged`);
          return;
        }
        if (Date.now() > deadline) {
          log(
            `${phase}: gave up after ${phaseTimeoutMs} ms, ${state.converged}/${expected.size} converged, ${lost} deletes pending`,
          );
          return;
        }
        await sleep(200);
      }
    };

    const started = Date.now();
    // 1. create wave; the API server restarts halfway
    await pool(names, concurrency, async (name, i) => {
      if (options.faults && i === Math.floor(n / 2)) {
        restarts++;
        await server.faults.restart();
      }
      await persist(async () => {
        try {
          await admin.create(Chaos, {
            apiVersion: Chaos.apiVersion,
            kind: Chaos.kind,
            metadata: { name, namespace },
            spec: { value: 'v1' },
          });
        } catch (error) {
          // a create that landed before its answer was lost
          if (!(error instanceof KubernetesApiError && error.isAlreadyExists())) throw error;
        }
      });
      expected.set(name, 'v1');
    });
    await waitConverged('create');

    // 2. history expires (every watch resumes into 410 and lists again); the operator is replaced
    if (options.faults) {
      compactions++;
      server.faults.compact();
      server.faults.closeAllWatches();
    }
    await operators[0].stop();
    operators.push(await startChaosOperator(server, namespace, probe, options.clientRetry ?? true));

    // 3. update all, with history expiring again halfway
    await pool(names, concurrency, async (name, i) => {
      if (options.faults && i === Math.floor(n / 2)) {
        compactions++;
        server.faults.compact();
      }
      await persist(() =>
        admin.mergePatch(Chaos, new ResourceID(name, namespace), { spec: { value: 'v2' } }),
      );
      expected.set(name, 'v2');
    });

    // 4. delete every fifth resource
    const doomed = names.filter((_, i) => i % 5 === 0);
    await pool(doomed, concurrency, async (name) => {
      await persist(() => admin.delete(Chaos, new ResourceID(name, namespace)));
      expected.delete(name);
      deleted.push(name);
    });
    await waitConverged('update and delete');
    const durationMs = Date.now() - started;

    if (dropTimer) clearInterval(dropTimer);
    writeFault?.remove();
    const final = await chaosState(admin, namespace, expected, deleted, probe);
    return {
      faults: options.faults,
      resources: n,
      deleted: deleted.length,
      converged: final.converged,
      remaining: expected.size,
      unconverged: final.unconverged.slice(0, 20),
      overlaps: probe.overlaps,
      overlapping: [...probe.overlapping],
      lostDeletes: final.lost.length,
      lost: final.lost.slice(0, 20),
      unhandledRejections: unhandled,
      durationMs,
      reconciles: probe.reconciles,
      cleanups: probe.cleanups,
      injectedFailures: server.faults.injectedFailures,
      watchDrops,
      compactions,
      restarts,
      operatorsStarted: operators.length,
    };
  } finally {
    if (dropTimer) clearInterval(dropTimer);
    await Promise.all(operators.map((o) => o.stop()));
    admin.close();
    await server.stop();
    process.off('unhandledRejection', onUnhandled);
  }
}

/** One line with the figures of a chaos run and its fault-free baseline. */
export function chaosSummary(chaos: ChaosReport, baseline: ChaosReport): string {
  const ratio = chaos.durationMs / Math.max(1, baseline.durationMs);
  return (
    `chaos N=${chaos.resources}: converged ${chaos.converged}/${chaos.remaining}, overlaps ${chaos.overlaps}, ` +
    `lost deletes ${chaos.lostDeletes}/${chaos.deleted}, unhandled rejections ${chaos.unhandledRejections}; ` +
    `time ${(chaos.durationMs / 1000).toFixed(1)} s vs fault-free ${(baseline.durationMs / 1000).toFixed(1)} s = ` +
    `${ratio.toFixed(2)}x (target 2x); ${chaos.injectedFailures} injected write failures, ${chaos.watchDrops} watch drops, ` +
    `${chaos.compactions} compactions (410), ${chaos.restarts} API-server restart, ${chaos.operatorsStarted} operator instances, ` +
    `${chaos.reconciles} reconciles (fault-free ${baseline.reconciles})`
  );
}
