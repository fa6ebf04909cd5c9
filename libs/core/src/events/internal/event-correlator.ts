import { LRUCache } from 'lru-cache';
import type { KubernetesEvent } from '../kubernetes-event.js';

/** Tuning of {@link EventCorrelator}; every field resolved. */
export interface CorrelatorSettings {
  /** Entries kept per cache. */
  readonly cacheSize: number;
  /** A repeat within this time of the last one updates the existing Event. */
  readonly repeatWindowMs: number;
  /** Distinct messages of one (object, type, reason) within the window before they are combined. */
  readonly aggregateMaxEvents: number;
  /** Window of the similar-message aggregation. */
  readonly aggregateWindowMs: number;
  /** Events per (source, object, type) that may be sent in a burst. */
  readonly spamBurst: number;
  /** One more event per (source, object, type) is allowed each this many ms. */
  readonly spamRefillMs: number;
}

/** What was last written for one event key. */
export interface Observation {
  readonly name: string;
  readonly count: number;
  readonly firstTimestamp: string;
  readonly lastSeen: number;
}

/** The outcome of {@link EventCorrelator.correlate}. */
export type Correlation =
  | { readonly skip: true }
  | {
      readonly skip: false;
      /** The key of the Event this occurrence counts towards. */
      readonly key: string;
      /** The message to write (the combined one when similar events were aggregated). */
      readonly message: string;
    };

const COMBINED_PREFIX = '(combined from similar events): ';

const join = (parts: Array<string | number | undefined>) => parts.map((p) => p ?? '').join('\u0000');

function objectKey(e: KubernetesEvent): Array<string | undefined> {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion];
}

/**
 * client-go's `EventCorrelator` for one recorder: similar-message aggregation (`EventAggregator`),
 * the count-keeping cache of written Events (`eventLogger`) and the per-object token-bucket spam
 * filter (`EventSourceObjectSpamFilter`). Keys are built from the same fields as client-go's.
 */
export class EventCorrelator {
  private readonly aggregates: LRUCache<string, { messages: Set<string>; lastSeen: number }>;
  private readonly observations: LRUCache<string, Observation>;
  private readonly buckets: LRUCache<string, { tokens: number; at: number }>;
  /** Occurrences the spam filter dropped since the last write, per event key (count them there). */
  private readonly dropped: LRUCache<string, { count: number; lastSeen: number }>;

  constructor(private readonly settings: CorrelatorSettings) {
    // bounded by a count through maxSize, not `max`: lru-cache allocates arrays of `max` slots up front
    // (six of 32 KB and typed arrays at the default 4,096), ~270 KB for every operator, idle or not
    const bounded = { maxSize: settings.cacheSize, sizeCalculation: () => 1 };
    this.aggregates = new LRUCache(bounded);
    this.observations = new LRUCache(bounded);
    this.buckets = new LRUCache(bounded);
    this.dropped = new LRUCache(bounded);
  }

  /**
   * Decides what an event becomes: dropped by the spam filter, or counted towards the Event with the
   * returned key (its own, or the combined one of similar events).
   */
  correlate(event: KubernetesEvent, now: number): Correlation {
    const aggregateKey = join([
      ...objectKey(event),
      event.type,
      event.reason,
      event.reportingComponent,
      event.reportingInstance,
    ]);
    let entry = this.aggregates.get(aggregateKey);
    if (!entry || now - entry.lastSeen > this.settings.aggregateWindowMs) {
      entry = { messages: new Set(), lastSeen: now };
      this.aggregates.set(aggregateKey, entry);
    }
    entry.lastSeen = now;
    // once combining, the set stops growing (client-go pops a key at the max): a message that
    // varies with every event (a time, a count) would otherwise be kept for as long as they come
    const max = this.settings.aggregateMaxEvents;
    if (entry.messages.size < max) entry.messages.add(event.message);
    const combined = entry.messages.size >= max;
    const key = combined
      ? aggregateKey
      : join([...objectKey(event), event.involvedObject.fieldPath, event.type, event.reason, event.message]);
    // one bucket per source, object and type (client-go's getSpamKey): a burst of Normal events
    // does not silence the Warnings about the same object
    if (!this.takeToken(join([...objectKey(event), event.type]), now)) {
      // still an occurrence: client-go counts it (eventObserve) before the filter drops it, so the
      // next write of the Event carries it
      const before = this.dropped.get(key);
      const fresh = !before || now - before.lastSeen > this.settings.repeatWindowMs;
      this.dropped.set(key, { count: fresh ? 1 : before.count + 1, lastSeen: now });
      return { skip: true };
    }
    return { skip: false, key, message: combined ? COMBINED_PREFIX + event.message : event.message };
  }

  /**
   * The occurrences of `key` the spam filter dropped (within the repeat window before `now`) since
   * this was last asked; the next write adds them to the Event's count.
   */
  takeDropped(key: string, now: number): number {
    const dropped = this.dropped.get(key);
    if (!dropped) return 0;
    this.dropped.delete(key);
    return now - dropped.lastSeen > this.settings.repeatWindowMs ? 0 : dropped.count;
  }

  /** The Event last written for `key`, if it was written within the repeat window. */
  lastWritten(key: string, now: number): Observation | undefined {
    const seen = this.observations.get(key);
    if (!seen || now - seen.lastSeen > this.settings.repeatWindowMs) return undefined;
    return seen;
  }

  /** Remembers a successful write. */
  written(key: string, observation: Observation): void {
    this.observations.set(key, observation);
  }

  private takeToken(key: string, now: number): boolean {
    const { spamBurst, spamRefillMs } = this.settings;
    const bucket = this.buckets.get(key) ?? { tokens: spamBurst, at: now };
    bucket.tokens = Math.min(spamBurst, bucket.tokens + Math.max(0, now - bucket.at) / spamRefillMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
