import type { LeaseJson } from '../../operator/leader-election/internal/lease-lock.js';
import {
  SHARD_ACK_ANNOTATION,
  SHARD_IDENTITY_ANNOTATION,
  SHARD_INCARNATION_ANNOTATION,
  SHARD_RELEASED_ANNOTATION,
} from '../sharding-configuration.js';
import type { GroupSettings } from './group-settings.js';

/** What the ring needs of a live member: its acknowledged ring and its incarnation. */
export interface LiveMember {
  ack?: string;
  incarnation?: string;
}

/** The last live state seen of another member's Lease. */
interface Observation {
  identity: string;
  /** The renewal's content: a change of it is a renewal. */
  key: string;
  /** Local time the content was first seen. */
  at: number;
  durationMs: number;
  ack: string | undefined;
  incarnation: string | undefined;
  /** Whether the member belongs in this replica's ring (see {@link GroupSettings.check}). */
  included: boolean;
  /** A fresh list showed this content expired (a watch cache alone never counts a member dead). */
  confirmedExpired?: boolean;
}

/**
 * The other members' Leases as this replica has seen them over time, by Lease name: which are live.
 *
 * A Lease is live while its holder is set and it was seen changing within its
 * `leaseDurationSeconds`, on the local clock (as client-go judges a leader lease). A member leaves at
 * once only when its holder released its Lease (empty holder, marked with
 * {@link SHARD_RELEASED_ANNOTATION}). A Lease deleted, relabelled or given another holder by someone
 * else keeps its member live until its last renewal seen expires: its holder may still be
 * reconciling, and notices the change only at its next renewal or watch event.
 */
export class MemberObservations {
  private readonly observed = new Map<string, Observation>();

  constructor(
    /** This replica's identity (its own Lease is not observed here). */
    private readonly identity: string,
    private readonly settings: GroupSettings,
  ) {}

  /** Forgets everything seen (a new start). */
  clear(): void {
    this.observed.clear();
  }

  /**
   * Live members other than this replica after a read of the group at local time `now`; with
   * `unconfirmed` when a member counts as dead on the word of the watch cache alone (not `fresh`),
   * and, after a `fresh` list, the Leases of members it showed dead (`expired`, as listed).
   */
  read(
    leases: readonly LeaseJson[],
    fresh: boolean,
    now: number,
  ): { live: Map<string, LiveMember>; unconfirmed: boolean; expired: LeaseJson[] } {
    let unconfirmed = false;
    const live = new Map<string, LiveMember>();
    const listed = new Map<string, LeaseJson>();
    const expired: LeaseJson[] = [];
    for (const lease of leases) {
      const name = lease.metadata?.name;
      if (!name) continue;
      listed.set(name, lease);
      const annotations = lease.metadata?.annotations ?? {};
      const identity = annotations[SHARD_IDENTITY_ANNOTATION];
      const spec = lease.spec ?? {};
      const ack = annotations[SHARD_ACK_ANNOTATION];
      const incarnation = annotations[SHARD_INCARNATION_ANNOTATION];
      if (!spec.holderIdentity && incarnation && annotations[SHARD_RELEASED_ANNOTATION] === incarnation) {
        this.observed.delete(name); // released by its holder: gone at once
        continue;
      }
      // changed by someone else: the last live state seen counts until it expires
      if (!identity || spec.holderIdentity !== identity) continue;
      const key = JSON.stringify([
        spec.holderIdentity,
        String(spec.renewTime),
        spec.leaseDurationSeconds,
        ack,
        incarnation,
      ]);
      if (this.observed.get(name)?.key === key) continue;
      const durationMs = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds * 1000 : 0;
      const included = this.settings.check(identity, incarnation, this.settings.read(annotations));
      this.observed.set(name, { identity, key, at: now, durationMs, ack, incarnation, included });
    }
    for (const [name, o] of this.observed) {
      if (o.identity === this.identity || !o.included) continue;
      if (now < o.at + o.durationMs) live.set(o.identity, { ack: o.ack, incarnation: o.incarnation });
      else if (fresh) {
        o.confirmedExpired = true;
        const lease = listed.get(name);
        if (lease) expired.push(lease);
        else this.observed.delete(name);
      } else if (!o.confirmedExpired) unconfirmed = true;
    }
    return { live, unconfirmed, expired };
  }
}
