// Shared by the widgets benchmark's processes (bench/widgets.ts, the API server process and the
// contender processes): the scenario's names, the objects every contender must write, and the
// messages the processes exchange. Imports nothing but Node, so a contender pays only for its own
// libraries.

/** The custom resource group, version and names of the scenario. */
export const WIDGET = {
  group: 'bench.tosdk.io',
  version: 'v1',
  plural: 'widgets',
  kind: 'Widget',
  apiVersion: 'bench.tosdk.io/v1',
} as const;

/** Every widget lives in this namespace. */
export const NAMESPACE = 'widgets';
/** Writes in flight (the operators' reconcile threads). */
export const CONCURRENCY = 50;
/** The field manager of every server-side apply in the scenario. */
export const FIELD_MANAGER = 'widgets-bench';

/** A Widget as the scenario creates it. */
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
  spec?: { value?: string };
  status?: WidgetStatus;
}

/** What every contender writes into a Widget's status. */
export interface WidgetStatus {
  configMap?: string;
  observed?: string;
}

/** The ConfigMap every contender applies for a widget (name, owner reference, data). */
export function desiredConfigMap(w: Widget): {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: {
    name: string;
    namespace: string;
    ownerReferences: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller: true }>;
  };
  data: { value: string };
} {
  const name = w.metadata!.name!;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `${name}-cm`,
      namespace: w.metadata!.namespace ?? NAMESPACE,
      ownerReferences: [
        { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, name, uid: w.metadata!.uid!, controller: true },
      ],
    },
    data: { value: w.spec?.value ?? '' },
  };
}

/** The status every contender writes for a widget. */
export function desiredStatus(w: Widget): Required<WidgetStatus> {
  return { configMap: `${w.metadata!.name!}-cm`, observed: w.spec?.value ?? '' };
}

/** How a contender reaches the API server. */
export interface Connection {
  /** `https://127.0.0.1:port` or `http://...`. */
  url: string;
  /** PEM of the server's CA (TLS only). */
  ca?: string;
  /** The admin's bearer token. */
  token: string;
  /** A kubeconfig file with the same. */
  kubeconfig: string;
}

/** The contenders, each run in a process of its own. */
export type ContenderName =
  | 'floor-raw'
  | 'floor-list-compare'
  | 'tosdk'
  | 'tosdk-ssa'
  | 'tosdk-workflow'
  | 'tosdk-idle-reconciler'
  | 'client-node'
  | 'dot-i';

/** A first pass over fresh widgets, or a restart against converged ones (nothing to write). */
export type Phase = 'converge' | 'restart';

/** Parent → contender. */
export type ToContender =
  | { type: 'init'; contender: ContenderName; connection: Connection; n: number; phase: Phase }
  | { type: 'go' }
  | { type: 'report' }
  | { type: 'stop' };

/** What a contender reports about itself at `report`. */
export interface ContenderReport {
  /** CPU time (user + system) from `go` to `report`, ms. */
  cpuMs: number;
  /** CPU time of the whole process (imports and set-up included), ms. */
  cpuTotalMs: number;
  /** Peak resident set size of the process, bytes. */
  maxRssBytes: number;
  /** RSS after imports and set-up, before `go`, bytes. */
  readyRssBytes: number;
  /** Contender-specific figures (reconciles, mismatches found, ...). */
  extra: Record<string, number>;
}

/** Contender → parent. */
export type FromContender =
  | { type: 'ready' }
  | { type: 'done'; extra?: Record<string, number> }
  | { type: 'report'; report: ContenderReport }
  | { type: 'error'; message: string };

/** Parent → API server process. */
export type ToServer =
  | { type: 'seed'; n: number }
  | { type: 'expect'; n: number }
  | { type: 'reset' }
  | { type: 'accounting' }
  | { type: 'stop' };

/** Writes and reads counted by the server since the last reset. */
export interface Accounting {
  /** Write requests in the scenario's namespace, by `verb resource[/subresource]`. */
  writes: Record<string, number>;
  writesTotal: number;
  /** Every request in the namespace or cluster-wide, reads and watches included. */
  requests: number;
  /** Server CPU since the last reset, ms. */
  serverCpuMs: number;
  /** When the first and the last counted write arrived, ms after the last reset (-1 without writes). */
  firstWriteMs: number;
  lastWriteMs: number;
}

/** API server process → parent. */
export type FromServer =
  | { type: 'listening'; connection: Connection }
  | { type: 'seeded' }
  | { type: 'converged' }
  | { type: 'accounting'; accounting: Accounting }
  | { type: 'error'; message: string };

/** What a contender module gives the contender process. */
export interface ContenderRun {
  /**
   * Starts the work. Floors resolve when their requests are done; operators resolve once started
   * (converge is observed on the server), or, on a restart, once every widget was reconciled.
   */
  go(): Promise<Record<string, number> | undefined>;
  /** Stops watches and closes connections. */
  stop(): Promise<void>;
}
