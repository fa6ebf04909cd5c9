import type { KubernetesResource } from '../../api/resource-type.js';
import { compareResourceVersions } from '../../informer/internal/resource-version.js';
import type { OwnWrite } from './own-write.js';

/** An informer event held back while an own write of the same object is in flight. */
export interface HeldEvent<R> {
  readonly kind: 'add' | 'update' | 'delete';
  readonly oldObj?: R;
  readonly obj: R;
  readonly finalStateUnknown?: boolean;
  /** Reported by a re-list, which may merge a foreign change into the version of our write. */
  readonly relisted?: boolean;
  /** The objects are not complete (a bounded cache keeps metadata only): only a request's own proof counts. */
  readonly opaque?: boolean;
}

interface KeyState<R extends KubernetesResource> {
  inFlight: number;
  /** resourceVersions our writes returned whose events have not arrived yet, with what each write did. */
  own: Map<string, Returned<R>>;
  held: HeldEvent<R>[];
}

/** A version an own write returned: what the write did, and whether the request proved it created it. */
interface Returned<R extends KubernetesResource> {
  readonly write: OwnWrite<R>;
  readonly certain: boolean;
}

/**
 * How many objects with pending own writes a tracker remembers: beyond it the least recently written
 * go first, except objects with a write in flight (see `OwnWriteTracker`'s eviction).
 */
export const MAX_TRACKED_KEYS = 50_000;

/** What to do with an informer event. */
export type Verdict = 'own' | 'foreign' | 'held';

/**
 * Own-write bookkeeping of an event source (JOSDK's `TemporaryResourceCache` and event filtering).
 *
 * A write's returned resourceVersion `r` is remembered with what the write did ({@link OwnWrite}).
 * The watch event carrying `r` is suppressed only when we know our request created `r` and nothing
 * else is in it: the request proves it ({@link OwnWrite.certain}: a create, a write conditional on
 * another version), or the event's transition (the informer's previous object → the object at `r`)
 * is exactly what our write makes of the previous object ({@link OwnWrite.explains}). A write that
 * changed nothing gets the current version back, which may be someone else's change (a spec, label
 * or data change, a deletion mark): that transition is not explained by our write, so the event
 * passes. Every other version is someone else's. Events that arrive while a write of the same
 * object is in flight are held until it returns (we cannot know our version before) and then
 * judged. Events of a re-list are always someone else's (a re-list may merge a foreign change into
 * the version of our write): at most one extra reconciliation, never a lost one. An event whose
 * previous and new object carry the same version (the informer reported it against our cached
 * write, which it does only for a write proven ours when it was cached) changes nothing.
 *
 * Freshness of the temporary cache (own results served before the informer has them) uses numeric
 * comparison when both versions are decimal (etcd): the informer's copy replaces ours once its
 * version is not older. With opaque versions the informer's copy replaces ours on the first event
 * of that object after the write (it may then, for a moment, be a late event older than our write).
 */
export class OwnWriteTracker<R extends KubernetesResource> {
  // A Map in insertion order, the least recently written first (a write moves its key to the end),
  // bounded by evicting from the front: a state lives from a write until its event is judged, so
  // the front holds the writes whose events are longest overdue. Cheaper per event than an LRU
  // cache's bookkeeping (it was ~1% of an operator's CPU in the widgets benchmark, issue 15 §2).
  private readonly states = new Map<string, KeyState<R>>();
  private readonly temp = new Map<string, R>();

  /** Marks a write of `key` as started. */
  begin(key: string): void {
    const state = this.stateOf(key);
    state.inFlight++;
  }

  /**
   * Marks a write as ended with its result (undefined when it failed) and returns the held events
   * that are someone else's (to be propagated). `cached` is the informer's copy now; `write` says
   * what the write did (see the class comment).
   */
  end(key: string, result: R | undefined, cached: R | undefined, write: OwnWrite<R>): HeldEvent<R>[] {
    const state = this.stateOf(key);
    state.inFlight = Math.max(0, state.inFlight - 1);
    const version = result?.metadata?.resourceVersion;
    if (result && version) {
      state.own.set(version, { write, certain: write.certain?.(result) ?? false });
      const informerVersion = cached?.metadata?.resourceVersion;
      const order = compareResourceVersions(informerVersion, version);
      const informerHasIt = informerVersion === version || (order !== undefined && order >= 0);
      const tempVersion = this.temp.get(key)?.metadata?.resourceVersion;
      const tempOrder = compareResourceVersions(tempVersion, version);
      if (!informerHasIt && !(tempOrder !== undefined && tempOrder > 0)) this.temp.set(key, result);
    }
    const foreign: HeldEvent<R>[] = [];
    if (state.inFlight === 0) {
      for (const held of state.held) {
        if (this.judge(state, held) === 'foreign') foreign.push(held);
        this.freshen(key, held);
      }
      state.held = [];
    }
    // A version the informer already holds whose event was not held (a write that changed nothing
    // returns the current version) never arrives as an event: forget it.
    const now = cached?.metadata?.resourceVersion;
    if (now) {
      for (const own of state.own.keys()) {
        const order = compareResourceVersions(own, now);
        if (own === now || (order !== undefined && order <= 0)) state.own.delete(own);
      }
    }
    this.tidy(key, state);
    return foreign;
  }

  /** Judges an informer event: ours (suppress), someone else's (propagate) or held (write in flight). */
  onEvent(key: string, event: HeldEvent<R>): Verdict {
    const state = this.states.get(key);
    if (state && state.inFlight > 0) {
      state.held.push(event);
      return 'held';
    }
    this.freshen(key, event);
    if (!state) return 'foreign';
    if (event.kind === 'delete') {
      // the object is gone: versions of it will not come back
      this.states.delete(key);
      return 'foreign';
    }
    const verdict = this.judge(state, event);
    this.tidy(key, state);
    return verdict;
  }

  /** The own result of `key` if it is ahead of the informer. */
  get(key: string): R | undefined {
    return this.temp.get(key);
  }

  /** Own results ahead of the informer. */
  entries(): IterableIterator<[string, R]> {
    return this.temp.entries();
  }

  /** Whether nothing is held or pending for `key` (for tests and diagnostics). */
  isIdle(key: string): boolean {
    return !this.states.has(key) && !this.temp.has(key);
  }

  /** Forgets everything (on stop or namespace change). */
  clear(): void {
    this.states.clear();
    this.temp.clear();
  }

  private judge(state: KeyState<R>, event: HeldEvent<R>): 'own' | 'foreign' {
    if (event.kind === 'delete') return 'foreign';
    const version = event.obj.metadata?.resourceVersion;
    const returned = version ? state.own.get(version) : undefined;
    if (!version || !returned) {
      if (version) this.dropOlderOwn(state, version);
      return 'foreign';
    }
    state.own.delete(version);
    this.dropOlderOwn(state, version);
    if (event.relisted) return 'foreign';
    if (returned.certain) return 'own';
    if (event.opaque) return 'foreign';
    const before = event.kind === 'add' ? undefined : event.oldObj;
    if (before?.metadata?.resourceVersion === version) return 'own';
    return returned.write.explains(before, event.obj) ? 'own' : 'foreign';
  }

  /** Own versions older than a version seen will never arrive as events (merged by a re-list). */
  private dropOlderOwn(state: KeyState<R>, seen: string): void {
    for (const own of state.own.keys()) {
      const order = compareResourceVersions(own, seen);
      if (order !== undefined && order < 0) state.own.delete(own);
    }
  }

  private freshen(key: string, event: HeldEvent<R>): void {
    const mine = this.temp.get(key);
    if (!mine) return;
    if (event.kind === 'delete') {
      this.temp.delete(key);
      return;
    }
    const order = compareResourceVersions(
      event.obj.metadata?.resourceVersion,
      mine.metadata?.resourceVersion,
    );
    if (order === undefined || order >= 0) this.temp.delete(key);
  }

  private stateOf(key: string): KeyState<R> {
    const states = this.states;
    let state = states.get(key);
    if (state) {
      // written again: to the end of the order
      states.delete(key);
    } else {
      state = { inFlight: 0, own: new Map(), held: [] };
      if (states.size >= MAX_TRACKED_KEYS) this.evictOne();
    }
    states.set(key, state);
    return state;
  }

  /**
   * Forgets the least recently written state that waits only for its own versions' events (at worst
   * one extra reconciliation when they come). A state with a write in flight holds the events that
   * arrive meanwhile, and dropping them could lose a foreign change: such states are never evicted
   * (they are bounded by the writes in flight), only moved behind the others.
   */
  private evictOne(): void {
    const states = this.states;
    for (let scanned = states.size; scanned > 0; scanned--) {
      const [key, front] = states.entries().next().value!;
      states.delete(key);
      if (front.inFlight === 0 && front.held.length === 0) return;
      states.set(key, front);
    }
  }

  private tidy(key: string, state: KeyState<R>): void {
    if (state.inFlight === 0 && state.own.size === 0 && state.held.length === 0) this.states.delete(key);
  }
}
