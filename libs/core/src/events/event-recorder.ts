import type { KubernetesResource } from '../api/resource-type.js';
import { ResourceID } from '../api/resource-id.js';
import { KubernetesApiError, KubernetesTransportError } from '../client/errors.js';
import type { KubernetesClient } from '../client/kubernetes-client.js';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { noopLogger } from '../util/logger.js';
import { EventCorrelator } from './internal/event-correlator.js';
import { EventResourceType } from './kubernetes-event.js';
import type { EventType, KubernetesEvent } from './kubernetes-event.js';
import { InvalidEventError, InvalidEventRecorderOptionsError } from './event-errors.js';

/** The client methods the recorder uses; a `KubernetesClient` has them all. */
export type EventClient = Pick<KubernetesClient, 'create' | 'mergePatch'>;

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** The emitting controller or operator: `source.component` and `reportingComponent`. Required. */
  component: string;
  /** The emitting instance (e.g. the pod name): `source.host` and `reportingInstance`. Defaults to none. */
  host?: string;
  /** Defaults to {@link systemClock}. */
  clock?: Clock;
  /** Where failed or dropped events are logged. Defaults to no logging. */
  logger?: Logger;
  /** A repeat of the same event within this time increments the existing Event's count. Defaults to 600,000 (10 min). */
  repeatWindowMs?: number;
  /**
   * Events of one type (Normal or Warning) about one object that may be sent in a burst (client-go's
   * spam filter, keyed by source, object and type). Defaults to 25.
   */
  spamBurst?: number;
  /** After a burst, one more event of that type about that object each this many ms. Defaults to 300,000 (5 min). */
  spamRefillMs?: number;
  /**
   * Distinct messages with one object, type and reason within `aggregateWindowMs` after which they
   * are combined into one Event "(combined from similar events): <latest message>". Defaults to 10.
   */
  aggregateMaxEvents?: number;
  /** Window of the similar-message aggregation. Defaults to 600,000 (10 min). */
  aggregateWindowMs?: number;
  /** Entries in each correlation cache (LRU). Defaults to 4096. */
  cacheSize?: number;
  /** Events waiting to be written beyond which new ones are dropped (and logged). Defaults to 1000. */
  maxPending?: number;
  /** Tries per event when the server is unreachable or answers 429/5xx. Defaults to 3. */
  maxAttempts?: number;
  /** Wait between tries (the first one randomized, as client-go does). Defaults to 1000. */
  retryDelayMs?: number;
  /** Longer messages are cut to this many characters (the events.k8s.io note limit). Defaults to 1024. */
  maxMessageLength?: number;
}

type Resolved = Required<Omit<EventRecorderOptions, 'host'>> & { host: string | undefined };

const EVENT_TYPES: ReadonlySet<string> = new Set(['Normal', 'Warning']);
const MAX_NAME = 253;

const COUNTS: ReadonlySet<string> = new Set([
  'spamBurst',
  'aggregateMaxEvents',
  'cacheSize',
  'maxPending',
  'maxAttempts',
]);

type NumericOption = {
  [K in keyof EventRecorderOptions]-?: NonNullable<EventRecorderOptions[K]> extends number ? K : never;
}[keyof EventRecorderOptions];

function checked(options: EventRecorderOptions, field: NumericOption, fallback: number): number {
  const value = options[field] ?? fallback;
  const zeroAllowed = field === 'retryDelayMs';
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (value === 0 && !zeroAllowed) ||
    (COUNTS.has(field) && !Number.isInteger(value))
  ) {
    const what = COUNTS.has(field)
      ? 'a positive integer'
      : zeroAllowed
        ? 'a number >= 0'
        : 'a positive number';
    throw new InvalidEventRecorderOptionsError(`${field} must be ${what}, got ${String(value)}`);
  }
  return value;
}

/** The refusal of a create in a namespace being deleted (client-go's `NamespaceTerminatingCause`). */
function isNamespaceTerminating(error: KubernetesApiError): boolean {
  return error.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') ?? false;
}

/** The nanoseconds of the last Event name made by any recorder of this process (see `newName`). */
let lastNanos = 0n;

/** metav1.Time: RFC 3339 in whole seconds, UTC. */
function kubeTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Publishes `core/v1` Events about objects, as client-go's `record.EventRecorder` does: a repeat of
 * the same event (same object, type, reason, message and source) within `repeatWindowMs` patches
 * `count` and `lastTimestamp` of the existing Event instead of creating another; many different
 * messages with one reason are combined into one Event; a token bucket per object and type drops spam
 * (a dropped occurrence still counts: the next write of its Event carries it in `count`).
 *
 * Events are best-effort: no method ever rejects. A failed write (including 403 Forbidden) is logged.
 * Awaiting a method waits until the event is written (or given up); not awaiting is fine too.
 */
export class EventRecorder {
  private readonly options: Resolved;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly correlator: EventCorrelator;
  private readonly chains = new Map<string, Promise<void>>();
  private pending = 0;

  /** @throws InvalidEventRecorderOptionsError when `component` is missing or a number is out of range. */
  constructor(
    private readonly client: EventClient,
    options: EventRecorderOptions,
  ) {
    if (typeof options?.component !== 'string' || options.component.trim() === '') {
      throw new InvalidEventRecorderOptionsError('component (the controller or operator name) is required');
    }
    this.options = {
      component: options.component,
      host: options.host || undefined,
      clock: options.clock ?? systemClock,
      logger: options.logger ?? noopLogger,
      repeatWindowMs: checked(options, 'repeatWindowMs', 600_000),
      spamBurst: checked(options, 'spamBurst', 25),
      spamRefillMs: checked(options, 'spamRefillMs', 300_000),
      aggregateMaxEvents: checked(options, 'aggregateMaxEvents', 10),
      aggregateWindowMs: checked(options, 'aggregateWindowMs', 600_000),
      cacheSize: checked(options, 'cacheSize', 4096),
      maxPending: checked(options, 'maxPending', 1000),
      maxAttempts: checked(options, 'maxAttempts', 3),
      retryDelayMs: checked(options, 'retryDelayMs', 1000),
      maxMessageLength: checked(options, 'maxMessageLength', 1024),
    };
    this.clock = this.options.clock;
    this.logger = this.options.logger.child({ component: this.options.component });
    this.correlator = new EventCorrelator(this.options);
  }

  /** Records a `Normal` event about `resource`. Never rejects. */
  normal(resource: KubernetesResource, reason: string, message: string, action?: string): Promise<void> {
    return this.event(resource, 'Normal', reason, message, action);
  }

  /** Records a `Warning` event about `resource`. Never rejects. */
  warning(resource: KubernetesResource, reason: string, message: string, action?: string): Promise<void> {
    return this.event(resource, 'Warning', reason, message, action);
  }

  /**
   * Records an event about `resource` in its namespace (`default` for a cluster-scoped object).
   * Never rejects: invalid input (no kind, apiVersion or name; a type other than Normal/Warning; no
   * reason) is logged as an {@link InvalidEventError} and dropped.
   */
  event(
    resource: KubernetesResource,
    type: EventType,
    reason: string,
    message: string,
    action?: string,
  ): Promise<void> {
    const now = this.clock.now();
    let event: KubernetesEvent;
    try {
      event = this.makeEvent(resource, type, reason, message, action);
    } catch (error) {
      this.logger.error('event not recorded: invalid input', { error: (error as Error).message, reason });
      return Promise.resolve();
    }
    const correlation = this.correlator.correlate(event, now);
    if (correlation.skip) {
      this.logger.debug('event dropped by the spam filter', this.describe(event));
      return Promise.resolve();
    }
    if (this.pending >= this.options.maxPending) {
      this.logger.warn('event dropped: too many events waiting to be written', this.describe(event));
      return Promise.resolve();
    }
    event.message = correlation.message;
    const { key } = correlation;
    this.pending++;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.publish(event, key, now));
    this.chains.set(key, next);
    return next.finally(() => {
      this.pending--;
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
  }

  /** Resolves when every event recorded so far has been written or given up. */
  async flush(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  private makeEvent(
    resource: KubernetesResource,
    type: EventType,
    reason: string,
    message: string,
    action: string | undefined,
  ): KubernetesEvent {
    const meta = resource?.metadata;
    if (!resource?.kind || !resource.apiVersion || !meta?.name) {
      throw new InvalidEventError('the object needs apiVersion, kind and metadata.name');
    }
    if (!EVENT_TYPES.has(type))
      throw new InvalidEventError(`event type must be Normal or Warning, got "${type}"`);
    if (typeof reason !== 'string' || reason.trim() === '')
      throw new InvalidEventError('an event needs a reason');
    const text = String(message ?? '');
    const max = this.options.maxMessageLength;
    const { component, host } = this.options;
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: meta.namespace || 'default' },
      involvedObject: {
        apiVersion: resource.apiVersion,
        kind: resource.kind,
        name: meta.name,
        namespace: meta.namespace || undefined,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
      type,
      reason,
      message: text.length > max ? `${text.slice(0, max - 3)}...` : text,
      ...(action ? { action } : {}),
      source: host ? { component, host } : { component },
      reportingComponent: component,
      ...(host ? { reportingInstance: host } : {}),
    };
  }

  /** Writes one occurrence, retrying transport failures, 429 and 5xx. */
  private async publish(event: KubernetesEvent, key: string, at: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.write(event, key, at);
        return;
      } catch (error) {
        const retryable =
          error instanceof KubernetesTransportError ||
          (error instanceof KubernetesApiError && error.isRetryable());
        if (!retryable || attempt >= this.options.maxAttempts) {
          this.logFailure(event, error);
          return;
        }
        const delay = this.options.retryDelayMs * (attempt === 1 ? Math.random() : 1);
        await new Promise<void>((resolve) => this.clock.setTimeout(resolve, delay));
      }
    }
  }

  private async write(event: KubernetesEvent, key: string, at: number): Promise<void> {
    const namespace = event.metadata?.namespace ?? 'default';
    const lastTimestamp = kubeTime(at);
    const seen = this.correlator.lastWritten(key, at);
    // occurrences the spam filter dropped since the last write count too (as in client-go)
    const dropped = this.correlator.takeDropped(key, at);
    if (seen) {
      const count = seen.count + 1 + dropped;
      try {
        await this.client.mergePatch(EventResourceType, new ResourceID(seen.name, namespace), {
          count,
          lastTimestamp,
          message: event.message,
        });
        this.correlator.written(key, { ...seen, count, lastSeen: at });
        return;
      } catch (error) {
        if (!(error instanceof KubernetesApiError && error.isNotFound())) throw error;
        // expired by the server's event TTL: write it again under its name, keeping the count
      }
      await this.create(event, seen.name, count, seen.firstTimestamp, lastTimestamp);
      this.correlator.written(key, { ...seen, count, lastSeen: at });
      return;
    }
    const name = this.newName(event.involvedObject.name ?? 'object', at);
    const count = 1 + dropped;
    await this.create(event, name, count, lastTimestamp, lastTimestamp);
    this.correlator.written(key, { name, count, firstTimestamp: lastTimestamp, lastSeen: at });
  }

  private async create(
    event: KubernetesEvent,
    name: string,
    count: number,
    firstTimestamp: string,
    lastTimestamp: string,
  ): Promise<void> {
    await this.client.create(EventResourceType, {
      ...event,
      metadata: { ...event.metadata, name },
      count,
      firstTimestamp,
      lastTimestamp,
    });
  }

  /**
   * `<object-name>.<hex nanoseconds>` like client-go, at most 253 characters, unique in the process:
   * the clock reads milliseconds, so the nanoseconds count up from the last name any recorder made
   * (the operator has a recorder per controller; two of them naming an Event about one object in the
   * same millisecond lost the second one to a 409).
   */
  private newName(objectName: string, at: number): string {
    const nanos = BigInt(at) * 1_000_000n;
    lastNanos = nanos > lastNanos ? nanos : lastNanos + 1n;
    const suffix = `.${lastNanos.toString(16)}`;
    const prefix = objectName.slice(0, MAX_NAME - suffix.length).replace(/[.-]+$/, '');
    return `${prefix}${suffix}`;
  }

  private describe(event: KubernetesEvent): Record<string, unknown> {
    const o = event.involvedObject;
    return {
      object: `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`,
      type: event.type,
      reason: event.reason,
    };
  }

  private logFailure(event: KubernetesEvent, error: unknown): void {
    const fields = { ...this.describe(event), error: (error as Error)?.message ?? String(error) };
    if (error instanceof KubernetesApiError && isNamespaceTerminating(error)) {
      // expected while a namespace goes away (client-go logs it at V(5)); no permission is missing
      this.logger.debug(
        `event not recorded: namespace "${event.metadata?.namespace}" is being terminated`,
        fields,
      );
      return;
    }
    if (error instanceof KubernetesApiError && error.isForbidden()) {
      this.logger.warn(
        `event not recorded: forbidden. Grant create and patch on events in namespace ` +
          `"${event.metadata?.namespace}" to the operator's service account`,
        fields,
      );
      return;
    }
    this.logger.warn('event not recorded', fields);
  }
}
