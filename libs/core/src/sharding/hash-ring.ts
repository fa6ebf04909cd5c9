/** 32-bit FNV-1a of a string's UTF-16 code units, finished with MurmurHash3's avalanche step. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A consistent-hash ring over member identities with `virtualNodes` points per member. Every
 * replica that sees the same members builds the same ring (the order of `members` does not
 * matter), so they agree on each key's owner without talking to each other; adding or removing a
 * member moves only the keys on its points.
 */
export class HashRing {
  /** The members, sorted. */
  readonly members: readonly string[];
  /** Identifies the ring (members and virtual nodes): equal fingerprints, equal assignment. */
  readonly fingerprint: string;
  private readonly points: Uint32Array;
  private readonly owners: string[];

  constructor(
    members: Iterable<string>,
    readonly virtualNodes: number,
  ) {
    this.members = Object.freeze([...new Set(members)].sort());
    const all: Array<[number, string]> = [];
    for (const member of this.members) {
      for (let i = 0; i < virtualNodes; i++) all.push([hash32(`${member}#${i}`), member]);
    }
    // ties (rare) broken by identity so every replica orders them alike
    all.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    this.points = Uint32Array.from(all.map((p) => p[0]));
    this.owners = all.map((p) => p[1]);
    this.fingerprint = HashRing.fingerprintOf(this.members, virtualNodes);
  }

  /** The {@link HashRing.fingerprint} a ring of these members would have, without building it. */
  static fingerprintOf(members: Iterable<string>, virtualNodes: number): string {
    const sorted = [...new Set(members)].sort();
    return `${virtualNodes}-${hash32(sorted.join('\n')).toString(16)}-${sorted.length}`;
  }

  /** The member owning `key`: the first point clockwise from the key's hash; undefined when empty. */
  ownerOf(key: string): string | undefined {
    return this.ownerOfHash(hash32(key));
  }

  /**
   * Whether every key this ring gives `member` is given to `member` by at least one of `rings` (so a
   * cache holding the union of `rings`' shares already holds this ring's share).
   */
  shareWithin(member: string, rings: readonly HashRing[]): boolean {
    // between two consecutive points of all rings together, every ring's owner is constant: checking
    // the owner at each point covers every key (the wrap-around interval ends at the first point)
    const points = new Set<number>(this.points);
    for (const r of rings) for (const p of r.points) points.add(p);
    for (const p of points) {
      if (this.ownerOfHash(p) === member && !rings.some((r) => r.ownerOfHash(p) === member)) return false;
    }
    return true;
  }

  /** The member owning the hash `h` (see {@link HashRing.ownerOf}). */
  private ownerOfHash(h: number): string | undefined {
    const n = this.points.length;
    if (n === 0) return undefined;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.points[mid] < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === n ? 0 : lo];
  }
}
