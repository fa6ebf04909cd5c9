import type { ResourceType, ResourceVersion } from './resource-type.js';
import { storageKey } from './resource-type.js';

/** A resource resolved from a request path: the type and the version asked for. */
export interface ResolvedResource {
  rt: ResourceType;
  version: ResourceVersion;
}

/**
 * The served resources, by group, version and plural. Built-ins are added at start; CRDs come and
 * go at run time (see the CRD controller).
 */
export class ResourceRegistry {
  private readonly byKey = new Map<string, ResourceType>();
  private readonly listeners = new Set<() => void>();

  /** Adds or replaces a resource. */
  add(rt: ResourceType): void {
    this.byKey.set(storageKey(rt), rt);
    this.changed();
  }

  /** Removes a resource. */
  remove(group: string, plural: string): void {
    if (this.byKey.delete(`${group}/${plural}`)) this.changed();
  }

  /** The resource of a storage key (`group/plural`). */
  byStorageKey(key: string): ResourceType | undefined {
    return this.byKey.get(key);
  }

  /** A served resource at one version, or undefined. */
  resolve(group: string, version: string, plural: string): ResolvedResource | undefined {
    const rt = this.byKey.get(`${group}/${plural}`);
    if (!rt) return undefined;
    const v = rt.versions.find((x) => x.name === version && x.served);
    return v ? { rt, version: v } : undefined;
  }

  /** Finds a resource by kind in a group (any served version). */
  byKind(group: string, kind: string): ResourceType | undefined {
    for (const rt of this.byKey.values()) if (rt.group === group && rt.kind === kind) return rt;
    return undefined;
  }

  /** All resources. */
  all(): ResourceType[] {
    return [...this.byKey.values()];
  }

  /**
   * The served groups with their versions, preferred first, in a stable order: core first, then
   * built-in groups in registration order, then CRD groups sorted by name.
   */
  groups(): { name: string; versions: string[] }[] {
    const order: string[] = [];
    const versions = new Map<string, string[]>();
    for (const rt of this.byKey.values()) {
      if (!versions.has(rt.group)) {
        versions.set(rt.group, []);
        order.push(rt.group);
      }
      const vs = versions.get(rt.group)!;
      for (const v of rt.versions) if (v.served && !vs.includes(v.name)) vs.push(v.name);
    }
    return order.map((name) => ({ name, versions: sortVersions(versions.get(name)!) }));
  }

  /** Resources served at a group version. */
  inGroupVersion(group: string, version: string): ResolvedResource[] {
    const out: ResolvedResource[] = [];
    for (const rt of this.byKey.values()) {
      if (rt.group !== group) continue;
      const v = rt.versions.find((x) => x.name === version && x.served);
      if (v) out.push({ rt, version: v });
    }
    return out;
  }

  /** Called after every change (discovery caches). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first, then others by name. */
export function sortVersions(vs: string[]): string[] {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  return [...vs].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return (ra[i] as number) - (rb[i] as number);
    return ra[3] < rb[3] ? -1 : ra[3] > rb[3] ? 1 : 0;
  });
}
