import type { KubernetesResource } from './resource-type.js';

/** Thrown when an object lacks the name that identifies it. */
export class MissingResourceNameError extends Error {
  /** Stable error code. */
  readonly code = 'MissingResourceName';
  constructor() {
    super('the resource has no metadata.name');
    this.name = 'MissingResourceNameError';
  }
}

/**
 * Identifies one object of a known kind by name and namespace (JOSDK's `ResourceID`).
 * Immutable; compare with {@link ResourceID.equals} or by {@link ResourceID.key}.
 */
export class ResourceID {
  /** `namespace/name`, or `name` for cluster-scoped objects. Unique per kind. */
  readonly key: string;

  constructor(
    /** The object's name. */
    readonly name: string,
    /** The object's namespace; undefined for cluster-scoped objects. */
    readonly namespace?: string,
  ) {
    this.key = namespace ? `${namespace}/${name}` : name;
  }

  /**
   * The ID of an object.
   * @throws MissingResourceNameError when the object has no name.
   */
  static fromResource(resource: KubernetesResource): ResourceID {
    const name = resource.metadata?.name;
    if (!name) throw new MissingResourceNameError();
    return new ResourceID(name, resource.metadata?.namespace || undefined);
  }

  /** Parses a {@link ResourceID.key}. */
  static fromKey(key: string): ResourceID {
    const slash = key.indexOf('/');
    return slash < 0 ? new ResourceID(key) : new ResourceID(key.slice(slash + 1), key.slice(0, slash));
  }

  /** Whether both name the same object. */
  equals(other: ResourceID | undefined): boolean {
    return other !== undefined && other.key === this.key;
  }

  /** The key. */
  toString(): string {
    return this.key;
  }
}
