import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { KubeConfigSource } from '../config/kube-config.js';
import type { KubernetesResource, ResourceType } from '../api/resource-type.js';
import type { ResourceID } from '../api/resource-id.js';
import type { Logger } from '../util/logger.js';
import { noopLogger } from '../util/logger.js';
import { callMetricsHook } from '../metrics/internal/call-hook.js';
import {
  KubernetesApiError,
  KubernetesClientClosedError,
  KubernetesClientUsageError,
  KubernetesTransportError,
} from './errors.js';
import type { KubernetesStatus } from './errors.js';
import { Connection } from './internal/connection.js';
import { Retrier } from './internal/retrier.js';
import type { RetrySafety } from './internal/retrier.js';
import { resolveClientRetryOptions } from './retry-policy.js';
import type { ClientRetryOptions, ClientRetryReason } from './retry-policy.js';
import { apiError, LineSplitter, open, send, transportError } from './internal/transport.js';
import {
  applyQuery,
  collectionPath,
  idOf,
  itemPath,
  queryString,
  requireNamespace,
  withKind,
  writeQuery,
} from './internal/paths.js';
import { parseWatchLine } from './internal/watch-line.js';
import { WarningReporter } from './internal/warnings.js';
import type { AnswerContext, HttpAnswer, HttpExchange } from './internal/transport.js';
import type {
  AccessReviewResult,
  ApplyOptions,
  DeleteOptions,
  GetOptions,
  JsonPatchOperation,
  ListOptions,
  ListResult,
  PatchOptions,
  RawRequestOptions,
  ResourceAttributes,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './types.js';

/** Options of {@link KubernetesClient.fromKubeConfig}. */
export interface KubernetesClientOptions {
  /** Where transport problems are logged (debug level). Defaults to no logging. */
  logger?: Logger;
  /** The `User-Agent` header. Defaults to `tosdk/0.1.0`. */
  userAgent?: string;
  /**
   * Most ordinary requests in flight at once (each on a connection of its own); watches do not count
   * and share the same keep-alive connections (an informer's watch goes on the socket its list used).
   * Defaults to 64.
   */
  maxSockets?: number;
  /**
   * A request fails with a `timeout` transport error when its socket is idle this long: no byte of
   * the answer came and no piece of a large request body (sent 64 KB at a time) left for the
   * server. A slow but steady upload or answer is not timed out. 0 turns the timeout off; at most
   * 2,147,483,647 (~24.8 days, the longest timer Node takes). Defaults to 60,000 ms.
   */
  requestTimeoutMs?: number;
  /** How long credentials of exec plugins and auth providers are reused before asking the KubeConfig again. Defaults to 60,000 ms (a 401 refreshes at once). */
  authRefreshMs?: number;
  /**
   * Retrying of transient failures (429 honouring `Retry-After`, 500/503/504, connection resets)
   * inside the client, for requests a repeat cannot harm; `false` turns it off. Defaults to
   * {@link DEFAULT_CLIENT_RETRY} (3 retries, 50 ms doubling to 1 s with jitter, `Retry-After` up to
   * 5 s, a budget of 20% extra requests plus 50 for bursts). See {@link ClientRetryOptions}.
   */
  retry?: ClientRetryOptions | false;
  /** Told of every retry the client makes (e.g. the operator's `Metrics`). Defaults to none. */
  metrics?: ClientRetryMetrics;
  /**
   * Told of each distinct warning the API server sends in a `Warning` header (`299 - "text"`): a
   * deprecated API version, a field it dropped as unknown (`fieldValidation` `Warn`, the server's
   * default), an admission webhook's warning. Each text is reported once per client. Defaults to
   * logging it through `logger` at warn level (as client-go's warning logger and
   * controller-runtime's deduplicating one do).
   */
  onWarning?: (warning: string, request: { method: string; path: string }) => void;
}

/** The client's metrics hook (a part of the operator's `Metrics`). */
export interface ClientRetryMetrics {
  /**
   * The client retries a request: `verb` is the client call (`get`, `list`, `create`, `update`,
   * `patch`, `apply`, `delete`, `request`), `reason` the transient failure.
   */
  clientRetry?(verb: string, reason: ClientRetryReason): void;
}

/** One request as the client's methods describe it. */
interface CallSpec {
  /** The client call, for metrics and logs. */
  verb: string;
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  textUnlessJson?: boolean;
  /** An empty body is a valid answer (a delete's 200 or 204); for the other typed calls it is an error. */
  emptyOk?: boolean;
  /** Whether a repeat could do harm; see `ClientRetryOptions`. */
  retry: RetrySafety;

  /** The Accept header. Defaults to `application/json`. */
  accept?: string;
}

/** Accept headers of metadata-only lists and watches, with full JSON as the fallback (as client-go sends). */
const ACCEPT_METADATA_LIST =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const ACCEPT_METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * How many write answers keep their text for {@link KubernetesClient.expectEcho}, and how many
 * characters of text they may hold together. A text is kept only until the event loop's current
 * turn ends (expectEcho is called in the microtasks that follow the answer), so a caller that drops
 * an answer finds the client holding nothing of it.
 */
const MAX_ANSWER_TEXTS = 128;
const MAX_ANSWER_CHARS = 4 * 2 ** 20;
/** How many expected echoes a client holds, and how many characters of text they hold together. */
const MAX_ECHOES = 256;
const MAX_ECHO_CHARS = 4 * 2 ** 20;
/** What a watch line carrying an object starts with (the API server's encoding, kube's and ours). */
const ECHO_PREFIXES = ['{"type":"MODIFIED","object":', '{"type":"ADDED","object":'] as const;
const RESOURCE_VERSION_MEMBER = '"resourceVersion":"';
/**
 * Longest watch event line taken: client-go's streaming decoder refuses an event over 16 MiB
 * (ErrObjectTooLarge); an object etcd stores is at most ~1.5 MiB.
 */
const MAX_WATCH_EVENT_CHARS = 16 * 2 ** 20;
/** What an answer that no API server gives (an empty object, HTML, a redirect) most likely means. */
const NOT_THE_API_SERVER =
  "check that the kubeconfig's server URL points at the Kubernetes API server itself, not at a proxy, load balancer or login page in front of it";

/**
 * The value of the first `"resourceVersion":"` member in a JSON text from `from` on (a quote
 * inside a string value is escaped, so the sequence is a member name). A short key to look an
 * echo up by: hashing the whole text costs a third of parsing it, this a tenth.
 */
function versionKey(text: string, from: number): string | undefined {
  const at = text.indexOf(RESOURCE_VERSION_MEMBER, from);
  if (at < 0) return undefined;
  const start = at + RESOURCE_VERSION_MEMBER.length;
  const end = text.indexOf('"', start);
  return end < 0 ? undefined : text.slice(start, end);
}

/** An object a watch may deliver instead of parsing the line whose object is exactly `text`. */
interface Echo {
  readonly text: string;
  readonly owned: object;
  /** The watches that may deliver it: those opened with this `sharedEchoes` value. */
  readonly consumer: object | true;
}

/**
 * A small, fast Kubernetes API client speaking HTTP/1.1 on its own keep-alive TLS (or TCP)
 * connections (Node's `https` client and the KubeConfig's agent behind a `proxy-url`), configured from a
 * `KubeConfig` of @kubernetes/client-node (CA, client certificates, bearer tokens, exec plugins
 * and auth providers, `insecure-skip-tls-verify`, all through the KubeConfig's own API), or from
 * tosdk's own {@link loadKubeConfig}, which does not load client-node unless exec or OIDC
 * credentials need it.
 *
 * Every method takes a {@link ResourceType}, so one client serves custom and built-in kinds.
 * Failures are typed: {@link KubernetesApiError} when the server answered with an error status,
 * {@link KubernetesTransportError} when there was no usable answer (connection, timeout, bad JSON).
 *
 * Why not @kubernetes/client-node's generated APIs: they need one API class per group and an
 * object per call; tosdk's runtime issues thousands of status patches and needs the typed errors,
 * the streaming watch and the per-kind paths of a dynamic client.
 */
export class KubernetesClient {
  private readonly logger: Logger;
  private readonly requestTimeoutMs: number;
  private readonly retrier: Retrier;
  private readonly metrics: ClientRetryMetrics;
  /** Reports the `Warning` headers of answers. */
  private readonly warnings: WarningReporter;
  /** Aborted by {@link KubernetesClient.close}: ends every watch, retry wait and request with a signal of its own. */
  private readonly closing = new AbortController();
  /** Aborts of the requests in flight (without a signal of their own), called by {@link KubernetesClient.close}. */
  private readonly inFlight = new Set<() => void>();
  /** The body text of the latest write answers, by the object parsed from it (see {@link expectEcho}). */
  private readonly answerTexts = new Map<object, string>();
  private answerChars = 0;
  /** Whether a sweep of {@link answerTexts} at the end of this event loop turn is scheduled. */
  private answerSweep = false;
  /** Objects a watch may deliver instead of parsing a line, by {@link versionKey} of their text. */
  private readonly echoes = new Map<string, Echo>();
  private echoChars = 0;

  private constructor(
    private readonly connection: Connection,
    options: KubernetesClientOptions,
    retrier: Retrier,
  ) {
    this.logger = options.logger ?? noopLogger;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.retrier = retrier;
    this.metrics = options.metrics ?? {};
    const logger = this.logger;
    const onWarning =
      options.onWarning ??
      ((warning: string, request: { method: string; path: string }) =>
        logger.warn(`Warning from the Kubernetes API server: ${warning}`, {
          method: request.method,
          path: request.path,
        }));
    this.warnings = new WarningReporter((warning, request) => {
      // a user's hook must not fail the request that carried the warning
      try {
        onWarning(warning, request);
      } catch (error) {
        logger.debug('onWarning threw', { error: (error as Error)?.message });
      }
    });
    // every request in flight listens on it; no leak warning for thousands of them
    setMaxListeners(0, this.closing.signal);
  }

  /**
   * A client for the KubeConfig's current context: a `KubeConfig` of @kubernetes/client-node, or
   * the result of {@link loadKubeConfig} (any {@link KubeConfigSource}).
   * @throws KubernetesClientConfigError when the KubeConfig has no current cluster or an unusable server URL.
   * @throws KubernetesClientUsageError when an option is out of range.
   */
  static fromKubeConfig(
    kubeConfig: KubeConfigSource,
    options: KubernetesClientOptions = {},
  ): KubernetesClient {
    const maxSockets = options.maxSockets ?? 64;
    if (!Number.isInteger(maxSockets) || maxSockets < 1) {
      throw new KubernetesClientUsageError(`maxSockets must be a positive integer, got ${maxSockets}`);
    }
    const timeout = options.requestTimeoutMs;
    // Node runs a timer longer than 2^31 - 1 ms after 1 ms: every request would time out at once
    if (timeout !== undefined && !(timeout >= 0 && timeout <= 2 ** 31 - 1)) {
      throw new KubernetesClientUsageError(
        `requestTimeoutMs must be between 0 (no timeout) and 2147483647 (~24.8 days), got ${timeout}`,
      );
    }
    const retrier = new Retrier(resolveClientRetryOptions(options.retry));
    const connection = new Connection(kubeConfig, {
      userAgent: options.userAgent ?? 'tosdk/0.1.0',
      maxSockets,
      authRefreshMs: options.authRefreshMs ?? 60_000,
    });
    return new KubernetesClient(connection, options, retrier);
  }

  /** Reads one object; undefined when it does not exist (404). */
  async get<T extends KubernetesResource>(
    type: ResourceType<T>,
    id: ResourceID,
    options: GetOptions = {},
  ): Promise<T | undefined> {
    try {
      return withKind(
        type,
        await this.call<T>({
          verb: 'get',
          method: 'GET',
          path: itemPath(type, id),
          retry: 'repeatable',
          signal: options.signal,
        }),
      );
    } catch (error) {
      if (error instanceof KubernetesApiError && error.isNotFound()) return undefined;
      throw error;
    }
  }

  /** Lists one page (or everything when no `limit` is given); items get `apiVersion` and `kind` filled in. */
  async list<T extends KubernetesResource>(
    type: ResourceType<T>,
    options: ListOptions = {},
  ): Promise<ListResult<T>> {
    const query = queryString({
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit,
      continue: options.continue,
      resourceVersion: options.resourceVersion,
      resourceVersionMatch: options.resourceVersionMatch,
    });
    const list = await this.call<{
      items?: T[] | null;
      metadata?: { resourceVersion?: string; continue?: string };
    }>({
      verb: 'list',
      method: 'GET',
      path: collectionPath(type, options.namespace) + query,
      signal: options.signal,
      retry: 'repeatable',
      accept: options.metadataOnly ? ACCEPT_METADATA_LIST : undefined,
    });
    const items = list.items ?? [];
    for (const item of items) {
      if (item.apiVersion === undefined) item.apiVersion = type.apiVersion;
      if (item.kind === undefined) item.kind = type.kind;
    }
    return {
      items,
      resourceVersion: list.metadata?.resourceVersion ?? '',
      continue: list.metadata?.continue || undefined,
    };
  }

  /** Creates an object in its `metadata.namespace` (POST). */
  async create<T extends KubernetesResource>(
    type: ResourceType<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const namespace = requireNamespace(type, obj.metadata?.namespace, 'create');
    return await this.call<T>({
      verb: 'create',
      method: 'POST',
      path: collectionPath(type, namespace) + writeQuery(options),
      body: withKind(type, obj),
      // a named create repeated after it landed answers 409 AlreadyExists; a generateName one
      // would create a second object
      retry: obj.metadata?.name ? 'repeatable' : 'refused-only',
      signal: options.signal,
    });
  }

  /** Replaces an object (PUT); `metadata.resourceVersion`, when set, makes it conditional (409 on a stale one). */
  async update<T extends KubernetesResource>(
    type: ResourceType<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return await this.call<T>({
      verb: 'update',
      method: 'PUT',
      path: itemPath(type, idOf(obj)) + writeQuery(options),
      body: withKind(type, obj),
      retry: preconditioned(obj),
      signal: options.signal,
    });
  }

  /** Replaces an object's status (PUT on the status subresource). */
  async updateStatus<T extends KubernetesResource>(
    type: ResourceType<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return await this.call<T>({
      verb: 'update',
      method: 'PUT',
      path: `${itemPath(type, idOf(obj))}/status${writeQuery(options)}`,
      body: withKind(type, obj),
      retry: preconditioned(obj),
      signal: options.signal,
    });
  }

  /**
   * Server-side apply (PATCH with `application/apply-patch+yaml`; the body is JSON, which is YAML).
   * `apiVersion` and `kind` are filled in when missing; the object is created when absent.
   */
  async apply<T extends KubernetesResource>(
    type: ResourceType<T>,
    obj: Partial<T> & { metadata: { name: string } },
    options: ApplyOptions,
  ): Promise<T> {
    if (!options?.fieldManager)
      throw new KubernetesClientUsageError('server-side apply needs a fieldManager');
    const query = applyQuery(
      options.fieldManager,
      options.force ?? true,
      options.dryRun ?? false,
      options.fieldValidation,
    );
    const path = itemPath(type, idOf(obj)) + (options.subresource ? `/${options.subresource}` : '') + query;
    return await this.call<T>({
      verb: 'apply',
      method: 'PATCH',
      path,
      body: withKind(type, obj as T),
      contentType: 'application/apply-patch+yaml',
      retry: 'repeatable',
      signal: options.signal,
    });
  }

  /** JSON merge patch (RFC 7386): `null` deletes a field, arrays are replaced. */
  mergePatch<T extends KubernetesResource>(
    type: ResourceType<T>,
    id: ResourceID,
    patch: object,
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patch(type, id, patch, 'application/merge-patch+json', options);
  }

  /** JSON patch (RFC 6902); a failing `test` operation gives a 422 (or 409 by server) error. */
  jsonPatch<T extends KubernetesResource>(
    type: ResourceType<T>,
    id: ResourceID,
    operations: JsonPatchOperation[],
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patch(type, id, operations, 'application/json-patch+json', options);
  }

  /** Strategic merge patch; only built-in kinds support it (custom resources answer 415). */
  strategicMergePatch<T extends KubernetesResource>(
    type: ResourceType<T>,
    id: ResourceID,
    patch: object,
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patch(type, id, patch, 'application/strategic-merge-patch+json', options);
  }

  /**
   * Deletes an object. Resolves with the object when the server returns it (it still exists with
   * finalizers, or the server echoes the deleted object), undefined when it was already gone (404)
   * or the server answered with a bare Status.
   */
  async delete<T extends KubernetesResource>(
    type: ResourceType<T>,
    id: ResourceID,
    options: DeleteOptions = {},
  ): Promise<T | undefined> {
    // kube-apiserver reads DeleteOptions from the body when there is one and then ignores the
    // query: dryRun goes in the body with the rest, or a dry run would really delete
    const body =
      options.propagationPolicy || options.preconditions || options.gracePeriodSeconds !== undefined
        ? {
            apiVersion: 'v1',
            kind: 'DeleteOptions',
            propagationPolicy: options.propagationPolicy,
            preconditions: options.preconditions,
            gracePeriodSeconds: options.gracePeriodSeconds,
            dryRun: options.dryRun ? ['All'] : undefined,
          }
        : undefined;
    try {
      // a repeat of a delete that landed finds 404 ("already gone"), but only a precondition keeps
      // the repeat from deleting an object of the same name created in between
      const pinned = Boolean(options.preconditions?.uid || options.preconditions?.resourceVersion);
      const result = await this.call<T | KubernetesStatus>({
        verb: 'delete',
        method: 'DELETE',
        path: itemPath(type, id) + (body ? '' : queryString({ dryRun: options.dryRun ? 'All' : undefined })),
        body,
        retry: pinned ? 'repeatable' : 'refused-only',
        signal: options.signal,
        emptyOk: true,
      });
      return result && result.kind !== 'Status' ? (result as T) : undefined;
    } catch (error) {
      if (error instanceof KubernetesApiError && error.isNotFound()) return undefined;
      throw error;
    }
  }

  /**
   * Watches a kind: an async iterable of events read from the server's newline-delimited JSON
   * stream. `ERROR` events come as values with a typed {@link KubernetesApiError} (410 Expired:
   * list again). The iteration ends when the server ends the stream (e.g. after `timeoutSeconds`)
   * or when `signal` aborts; breaking out of the loop closes the connection.
   *
   * @throws KubernetesApiError (from the first `next()`) when the server refuses the watch (403, 410, ...).
   * @throws KubernetesTransportError when the connection fails or a line is not a JSON watch event.
   */
  watch<T extends KubernetesResource>(
    type: ResourceType<T>,
    options: WatchOptions = {},
  ): AsyncIterable<WatchEvent<T>> {
    const path =
      collectionPath(type, options.namespace) +
      queryString({
        watch: 'true',
        resourceVersion: options.resourceVersion || undefined,
        resourceVersionMatch: options.resourceVersionMatch,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        allowWatchBookmarks: options.allowWatchBookmarks || undefined,
        timeoutSeconds: options.timeoutSeconds,
        sendInitialEvents: options.sendInitialEvents,
      });
    const accept = options.metadataOnly ? ACCEPT_METADATA : undefined;
    return {
      [Symbol.asyncIterator]: () =>
        this.streamWatch<T>(path, options.signal, options.onConnected, accept, options.sharedEchoes ?? false),
    };
  }

  /**
   * A raw request, for what has no typed method (discovery: `request('/apis')`, `request('/version')`).
   * Resolves with the parsed JSON body, the text when the answer is not JSON (`/healthz` answers
   * `ok` as text/plain), or undefined for an empty body.
   */
  async request<T = unknown>(path: string, options: RawRequestOptions = {}): Promise<T> {
    if (!path.startsWith('/'))
      throw new KubernetesClientUsageError(`request path must start with "/", got "${path}"`);
    const query = options.query ? queryString(options.query) : '';
    const method = options.method ?? 'GET';
    return await this.call<T>({
      verb: 'request',
      method,
      path: path + query,
      body: options.body,
      contentType: options.contentType,
      signal: options.signal,
      textUnlessJson: true,
      retry: method === 'GET' ? 'repeatable' : 'refused-only',
    });
  }

  /** Asks the server whether the client's identity may do something (SelfSubjectAccessReview). */
  async selfSubjectAccessReview(attributes: ResourceAttributes): Promise<AccessReviewResult> {
    const review = await this.call<{ status?: AccessReviewResult }>({
      verb: 'create',
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: attributes },
      },
      // a review is a question: asking twice changes nothing
      retry: 'repeatable',
    });
    return {
      allowed: review.status?.allowed === true,
      denied: review.status?.denied,
      reason: review.status?.reason,
      evaluationError: review.status?.evaluationError,
    };
  }

  /**
   * Internal (the informers' and event sources' own writes, issue 15 §2): lets a watch of this client
   * opened with `sharedEchoes` (an informer's) deliver `owned` instead of parsing the event of the
   * version `answer` carries; with `consumer`, only a watch opened with `sharedEchoes: consumer` (the
   * informer whose cache holds `owned`: no other consumer of this client ever receives it). `answer` must be
   * an object a write of this client returned (the API server encodes a write's answer and the
   * watch event of that version from the same object with the same encoder, so the event's object
   * is that answer's text byte for byte), and `owned` the same value: `answer` itself or a copy of
   * it, unchanged since it was returned and never changed afterwards (a cache's object). The match
   * is by equality of the whole texts (looked up by their resourceVersion), so it has no false positive; where the texts differ (another
   * encoding, a metadata-only watch) the event is parsed as usual. Bounded: an echo that never comes
   * is forgotten after {@link MAX_ECHOES} newer ones or 4 Mi characters of newer texts. An answer's
   * text is kept only until the current event loop turn ends: call this right after the write.
   * @returns whether the answer's text was still known (false: its event will be parsed).
   */
  expectEcho(answer: object, owned: object = answer, consumer?: object): boolean {
    const text = this.answerTexts.get(answer);
    if (text === undefined) return false;
    this.answerTexts.delete(answer);
    this.answerChars -= text.length;
    const key = versionKey(text, 0);
    if (key === undefined || text.length > MAX_ECHO_CHARS) return false;
    // a key already there (two answers of one version) is replaced: the older one is parsed
    this.dropEcho(key);
    const echoes = this.echoes;
    while (echoes.size > 0 && (echoes.size >= MAX_ECHOES || this.echoChars + text.length > MAX_ECHO_CHARS))
      this.dropEcho(echoes.keys().next().value!);
    echoes.set(key, { text, owned, consumer: consumer ?? true });
    this.echoChars += text.length;
    return true;
  }

  /**
   * Closes the client for good: requests and watches in flight are aborted and reject with
   * {@link KubernetesClientClosedError} (a watch's iteration throws it), every later request
   * rejects with it at once, and the connection pools are destroyed and never rebuilt. So a
   * stopped operator cannot write, even from a reconcile that outlived `stop()`. Idempotent.
   */
  close(): void {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    for (const abort of [...this.inFlight]) abort();
    this.answerTexts.clear();
    this.answerChars = 0;
    this.echoes.clear();
    this.echoChars = 0;
    this.connection.close();
  }

  /** Whether {@link KubernetesClient.close} was called. */
  get isClosed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Retries the client's global retry budget allows right now (see {@link ClientRetryOptions}). */
  get retryBudget(): number {
    return this.retrier.available;
  }

  private async patch<T extends KubernetesResource>(
    type: ResourceType<T>,
    id: ResourceID,
    patch: unknown,
    contentType: string,
    options: PatchOptions,
  ): Promise<T> {
    const path =
      itemPath(type, id) + (options.subresource ? `/${options.subresource}` : '') + writeQuery(options);
    return await this.call<T>({
      verb: 'patch',
      method: 'PATCH',
      path,
      body: patch,
      contentType,
      retry: patchSafety(patch, contentType),
      signal: options.signal,
    });
  }

  /**
   * Sends a request, retrying transient failures as the retry options allow (see
   * {@link ClientRetryOptions}); a closed client refuses and interrupts.
   */
  private async call<R>(spec: CallSpec): Promise<R> {
    const request = { method: spec.method, path: spec.path };
    if (this.isClosed) throw new KubernetesClientClosedError(request);
    // a request with a signal of its own listens on both; the others register in `inFlight`
    const signal = spec.signal ? AbortSignal.any([spec.signal, this.closing.signal]) : undefined;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    this.retrier.deposit();
    let previous: unknown;
    for (let retries = 0; ; retries++) {
      try {
        return await this.attempt<R>(spec, body, signal);
      } catch (error) {
        if (this.isClosed) throw new KubernetesClientClosedError(request, { cause: error });
        if (spec.signal?.aborted) throw error;
        const decision = this.retrier.decide(error, spec.retry, retries);
        if (!decision) {
          // e.g. 409 AlreadyExists of a repeated create: say what led to the repeat
          if (previous !== undefined && error instanceof Error && error.cause === undefined) {
            Object.defineProperty(error, 'cause', { value: previous, configurable: true, writable: true });
          }
          throw error;
        }
        previous = error;
        this.logger.debug('Kubernetes API request failed transiently; retrying', {
          method: spec.method,
          path: spec.path,
          reason: decision.reason,
          retry: retries + 1,
          delayMs: decision.delayMs,
        });
        // a metrics hook must not fail a request
        if (this.metrics.clientRetry)
          callMetricsHook(() => this.metrics.clientRetry?.(spec.verb, decision.reason), this.logger);
        try {
          await delay(decision.delayMs, undefined, { signal: signal ?? this.closing.signal });
        } catch (aborted) {
          if (this.isClosed) throw new KubernetesClientClosedError(request, { cause: error });
          throw new KubernetesTransportError('the request was aborted', 'aborted', {
            request,
            cause: aborted,
          });
        }
      }
    }
  }

  /**
   * One attempt (plus one more after a 401 when credentials can be refreshed). A chain of plain
   * promises rather than nested async functions: fewer promises and microtask turns per request.
   */
  private attempt<R>(spec: CallSpec, body: string | undefined, signal: AbortSignal | undefined): Promise<R> {
    const exchange: HttpExchange = {
      method: spec.method,
      path: spec.path,
      body,
      contentType: spec.contentType,
      signal,
      inFlight: this.inFlight,
      idleTimeoutMs: this.requestTimeoutMs,
      accept: spec.accept,
      // a reset on a kept socket may come after the server processed the request
      resendable: spec.retry === 'repeatable',
    };
    return send(this.connection, exchange).then(
      (answer) => {
        if (answer.status === 401 && this.connection.hasDynamicAuth) {
          this.connection.invalidateAuth(exchange.credentials);
          return send(this.connection, exchange).then(
            (again) => this.decode<R>(spec, again),
            (error: unknown) => this.failed(exchange, error),
          );
        }
        return this.decode<R>(spec, answer);
      },
      (error: unknown) => this.failed(exchange, error),
    );
  }

  /**
   * The value of an answer: its parsed JSON body (or text, or undefined when empty). As client-go's
   * transformResponse and Result.Into: a status outside 2xx is an error (a typed call's redirect
   * too, a raw request's 3xx is its caller's), and a typed call's empty or non-JSON body is one.
   */
  private decode<R>(spec: CallSpec, answer: HttpAnswer): R {
    const { method, path } = spec;
    const status = answer.status;
    if (answer.headers.warning !== undefined) this.warnings.check(answer.headers, { method, path });
    if (status >= 400 || status < 200) {
      throw apiError(status, answer.headers, answer.body, { method, path }, this.answerContext());
    }
    const raw = spec.textUnlessJson === true;
    if (status >= 300 && !raw) throw this.redirectError(answer, { method, path });
    if (answer.body.length === 0) {
      if (raw || spec.emptyOk) return undefined as R;
      throw new KubernetesTransportError(
        `the API server at ${this.connection.url} answered ${status} with an empty body where the ${spec.verb} needs an object: ${NOT_THE_API_SERVER}`,
        'unparsable-body',
        { request: { method, path } },
      );
    }
    const contentType = answer.headers['content-type'];
    if (raw && !/\bjson\b/i.test(String(contentType ?? ''))) {
      return answer.body.toString('utf8') as R;
    }
    try {
      const text = answer.body.toString('utf8');
      const value = JSON.parse(text) as R;
      // a write's answer: its text kept for a moment, for expectEcho
      if (spec.method !== 'GET' && typeof value === 'object' && value !== null)
        this.keepAnswerText(value, text);
      return value;
    } catch (cause) {
      const start = answer.body.subarray(0, 200).toString('utf8').replace(/\s+/g, ' ').trim();
      throw new KubernetesTransportError(
        `the API server at ${this.connection.url} answered ${status} with a body that is not JSON ` +
          `(content type ${JSON.stringify(String(contentType ?? 'none'))}, starting ${JSON.stringify(start)}): ${NOT_THE_API_SERVER}`,
        'unparsable-body',
        { cause, request: { method, path } },
      );
    }
  }

  /** The server and user named in the messages of failure answers. */
  private answerContext(): AnswerContext {
    return { server: this.connection.url, user: this.connection.userName };
  }

  /** A 3xx answer to a typed call: the API server never redirects one, something in front of it did. */
  private redirectError(answer: HttpAnswer, request: { method: string; path: string }): KubernetesApiError {
    const location = answer.headers.location;
    const to = location === undefined ? 'without a Location' : `to ${String(location)}`;
    const body = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: answer.status,
      message: `the API server at ${this.connection.url} answered ${answer.status}, a redirect ${to}: ${NOT_THE_API_SERVER}`,
    };
    return new KubernetesApiError(answer.status, body, { request });
  }

  private keepAnswerText(value: object, answer: string): void {
    // kube-apiserver ends an answer with a newline; the watch event's object is compacted
    const text = answer.charCodeAt(answer.length - 1) === 10 ? answer.trimEnd() : answer;
    if (text.length > MAX_ANSWER_CHARS) return;
    const texts = this.answerTexts;
    while (
      texts.size > 0 &&
      (texts.size >= MAX_ANSWER_TEXTS || this.answerChars + text.length > MAX_ANSWER_CHARS)
    ) {
      const [oldest, dropped] = texts.entries().next().value!;
      texts.delete(oldest);
      this.answerChars -= dropped.length;
    }
    texts.set(value, text);
    this.answerChars += text.length;
    if (!this.answerSweep) {
      this.answerSweep = true;
      // expectEcho comes in the microtasks after the answer: nothing is kept past this turn
      setImmediate(() => {
        this.answerSweep = false;
        this.answerTexts.clear();
        this.answerChars = 0;
      }).unref();
    }
  }

  private dropEcho(key: string): void {
    const echo = this.echoes.get(key);
    if (!echo) return;
    this.echoes.delete(key);
    this.echoChars -= echo.text.length;
  }

  /**
   * The object of a watch line that is the echo of an own write (see {@link expectEcho}), without
   * parsing it; undefined when the line is not one.
   */
  private echoOf<T>(line: string, consumer: object | true): WatchEvent<T> | undefined {
    const type = line.startsWith(ECHO_PREFIXES[0])
      ? 'MODIFIED'
      : line.startsWith(ECHO_PREFIXES[1])
        ? 'ADDED'
        : undefined;
    if (type === undefined || line.charCodeAt(line.length - 1) !== 125 /* } */) return undefined;
    const from = type === 'MODIFIED' ? ECHO_PREFIXES[0].length : ECHO_PREFIXES[1].length;
    const key = versionKey(line, from);
    if (key === undefined) return undefined;
    const echo = this.echoes.get(key);
    // exactly the answer's text, or not an echo of it (another watch of that version, e.g. a
    // metadata-only one, parses its own text and leaves the expectation to the full watch)
    if (
      !echo ||
      echo.consumer !== consumer ||
      line.length !== from + echo.text.length + 1 ||
      !line.startsWith(echo.text, from)
    )
      return undefined;
    this.dropEcho(key);
    return { type, object: echo.owned as T };
  }

  /** Logs a failed request (debug) and rethrows its error. */
  private failed(exchange: HttpExchange, error: unknown): never {
    this.logger.debug('Kubernetes API request failed', {
      method: exchange.method,
      path: exchange.path,
      error: (error as Error).message,
    });
    throw error;
  }

  private async *streamWatch<T>(
    path: string,
    signal: AbortSignal | undefined,
    onConnected: (() => void) | undefined,
    accept: string | undefined,
    sharedEchoes: boolean | object,
  ): AsyncGenerator<WatchEvent<T>> {
    const request = { method: 'GET', path };
    if (this.isClosed) throw new KubernetesClientClosedError(request);
    if (signal?.aborted) return;
    const both = signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
    const exchange: HttpExchange = {
      method: 'GET',
      path,
      signal: both,
      idleTimeoutMs: 0,
      accept,
    };
    let opened;
    try {
      opened = await open(this.connection, exchange);
      if (opened.status === 401 && this.connection.hasDynamicAuth) {
        // as for other requests: rotated credentials (a token file, an exec plugin) are read again
        // and the watch opened once more, rather than failing until their periodic refresh
        opened.destroy();
        this.connection.invalidateAuth(exchange.credentials);
        opened = await open(this.connection, exchange);
      }
    } catch (error) {
      if (this.isClosed) throw new KubernetesClientClosedError(request, { cause: error });
      if (signal?.aborted) return;
      throw error;
    }
    const res = opened;
    if (res.headers.warning !== undefined) this.warnings.check(res.headers, request);
    try {
      const status = res.status;
      if (status !== 200) {
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk);
        throw apiError(status, res.headers, Buffer.concat(chunks), request, this.answerContext());
      }
      const contentType = res.headers['content-type'];
      if (contentType !== undefined && !/\bjson\b/i.test(String(contentType))) {
        // a page of something in front of the API server, not a watch: say so, with its start
        let start = Buffer.alloc(0);
        for await (const chunk of res) {
          start = Buffer.concat([start, chunk]);
          if (start.length >= 200) break;
        }
        const text = start.subarray(0, 200).toString('utf8').replace(/\s+/g, ' ').trim();
        throw new KubernetesTransportError(
          `the API server at ${this.connection.url} answered the watch with content type ${JSON.stringify(String(contentType))}, ` +
            `not a stream of JSON events (starting ${JSON.stringify(text)}): ${NOT_THE_API_SERVER}`,
          'unparsable-watch-event',
          { request },
        );
      }
      onConnected?.();
      // lines split synchronously per chunk: one async step per event (this generator), not two
      const splitter = new LineSplitter(
        MAX_WATCH_EVENT_CHARS,
        () =>
          new KubernetesTransportError(
            `a watch event from the API server at ${this.connection.url} is longer than 16 MiB (no end of line after ${MAX_WATCH_EVENT_CHARS} characters): ` +
              'no object the API server stores is that large; the stream is not a watch of the API server (check for a proxy in front of it)',
            'unparsable-watch-event',
            { request },
          ),
      );
      const lines: string[] = [];
      for await (const chunk of res) {
        splitter.push(chunk, lines);
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i];
          yield (
            (sharedEchoes !== false && this.echoes.size > 0
              ? this.echoOf<T>(line, sharedEchoes)
              : undefined) ?? parseWatchLine<T>(line, request)
          );
        }
        lines.length = 0;
      }
      if (this.isClosed) throw new KubernetesClientClosedError(request);
      if (!res.complete) {
        if (signal?.aborted) return;
        // a line in progress when the stream was cut is not an event
        throw new KubernetesTransportError(
          `the watch stream from the API server at ${this.connection.url} was cut off`,
          'stream-ended',
          { request },
        );
      }
      const last = splitter.end();
      if (last !== undefined) yield parseWatchLine<T>(last, request);
    } catch (error) {
      if (error instanceof KubernetesClientClosedError) throw error;
      if (this.isClosed) throw new KubernetesClientClosedError(request, { cause: error });
      if (signal?.aborted) return;
      if (error instanceof KubernetesApiError || error instanceof KubernetesTransportError) throw error;
      throw transportError(error, exchange, request, this.connection.url);
    } finally {
      res.destroy();
    }
  }
}

/** A replace is conflict-free with a resourceVersion precondition (a landed repeat gets 409). */
function preconditioned(obj: KubernetesResource): RetrySafety {
  return obj.metadata?.resourceVersion ? 'repeatable' : 'refused-only';
}

/** Merge patches are idempotent; a JSON patch when its tests fail on a repeat; strategic merge with a resourceVersion. */
function patchSafety(patch: unknown, contentType: string): RetrySafety {
  if (contentType === 'application/merge-patch+json') return 'repeatable';
  if (contentType === 'application/json-patch+json') return jsonPatchSafety(patch);
  const metadata = (patch as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata;
  return metadata?.resourceVersion ? 'repeatable' : 'refused-only';
}

/**
 * A JSON patch is safe to repeat when a landed first attempt makes the repeat fail a `test`: one
 * of `/metadata/resourceVersion` (every landed write changes it), or tests covering every path the
 * patch changes (a landed attempt changed a tested value, or changed nothing). A test of some other
 * field stays true after the first attempt landed, and the repeat would apply the patch twice
 * (e.g. append to a list again).
 */
function jsonPatchSafety(patch: unknown): RetrySafety {
  if (!Array.isArray(patch)) return 'refused-only';
  const ops = patch as Array<{ op?: unknown; path?: unknown; from?: unknown } | undefined>;
  if (ops.some((o) => o?.op === 'test' && o.path === '/metadata/resourceVersion')) return 'repeatable';
  const tested: string[] = [];
  const covered = (path: unknown) =>
    typeof path === 'string' && tested.some((t) => t === '' || path === t || path.startsWith(`${t}/`));
  for (const o of ops) {
    if (o?.op === 'test') {
      if (typeof o.path === 'string') tested.push(o.path);
    } else if (!covered(o?.path) || (o?.op === 'move' && !covered(o.from))) {
      return 'refused-only';
    }
  }
  return tested.length > 0 ? 'repeatable' : 'refused-only';
}
