import type { SchemaOptions, TArray, TNull, TSchema, TUnion, TUnsafe } from '@sinclair/typebox';
import type { ValidationRule } from './resource-definition.js';

// These builders make the same objects as TypeBox's `Type.Unsafe`, `Type.Array`, `Type.Union` and
// `Type.Null` (in TypeBox's default instance mode), by hand: importing TypeBox at run time loads its
// ~200 modules (about 15 MB of RSS) into every operator that imports @tosdk/core, also one that
// declares no schema. TypeBox marks its schemas with a registered symbol, so these are TypeBox
// schemas to TypeBox itself (a test compares them with TypeBox's own output).
const Kind = Symbol.for('TypeBox.Kind');

function unsafe<T>(options: SchemaOptions): TUnsafe<T> {
  const kind = (options as Record<symbol, unknown>)[Kind] ?? 'Unsafe';
  return { ...options, [Kind]: kind } as unknown as TUnsafe<T>;
}

function array<T extends TSchema>(items: T, options: SchemaOptions): TArray<T> {
  return { ...options, [Kind]: 'Array', type: 'array', items } as unknown as TArray<T>;
}

/**
 * TypeBox builders for the Kubernetes schema extensions (`x-kubernetes-*`), for use inside the
 * `spec`/`status` schemas of {@link defineResource}. Everything else is plain TypeBox
 * (`Type.Object`, `Type.String({ format: 'date-time' })`, `Type.Union([Type.Literal('a'), ...])`
 * becomes an `enum`, `{ default: ... }`, `{ description: ... }`).
 */
export const K8s = Object.freeze({
  /** `x-kubernetes-int-or-string`: an integer or a string (ports, quantities such as `50%`). */
  IntOrString(options: SchemaOptions = {}): TUnsafe<number | string> {
    return unsafe<number | string>({ ...options, 'x-kubernetes-int-or-string': true });
  },

  /** An object whose fields are kept as they are (`x-kubernetes-preserve-unknown-fields`), typed `T`. */
  PreserveUnknownFields<T = Record<string, unknown>>(options: SchemaOptions = {}): TUnsafe<T> {
    return unsafe<T>({ ...options, type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  },

  /** A complete Kubernetes object (`x-kubernetes-embedded-resource`: apiVersion, kind, metadata). */
  EmbeddedResource<T = Record<string, unknown>>(options: SchemaOptions = {}): TUnsafe<T> {
    return unsafe<T>({
      ...options,
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    });
  },

  /** A list merged by key (`x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`); keys must be required fields of the items. */
  ListMap<T extends TSchema>(items: T, keys: string[], options: SchemaOptions = {}): TArray<T> {
    return array(items, {
      ...options,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': keys,
    });
  },

  /** A list of unique scalars merged as a set (`x-kubernetes-list-type: set`). */
  ListSet<T extends TSchema>(items: T, options: SchemaOptions = {}): TArray<T> {
    return array(items, { ...options, 'x-kubernetes-list-type': 'set' });
  },

  /** A list replaced as a whole on apply (`x-kubernetes-list-type: atomic`). */
  ListAtomic<T extends TSchema>(items: T, options: SchemaOptions = {}): TArray<T> {
    return array(items, { ...options, 'x-kubernetes-list-type': 'atomic' });
  },

  /** `T` or `null` (`nullable: true` in the CRD). */
  Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
    const nul = { [Kind]: 'Null', type: 'null' } as unknown as TNull;
    return { [Kind]: 'Union', anyOf: [schema, nul] } as unknown as TUnion<[T, TNull]>;
  },

  /**
   * Schema options carrying CEL rules (`x-kubernetes-validations`), to spread into a schema's options:
   * `Type.Object({...}, { ...K8s.rules({ rule: 'self.min <= self.max', message: 'min above max' }) })`.
   */
  rules(...rules: ValidationRule[]): { 'x-kubernetes-validations': ValidationRule[] } {
    return { 'x-kubernetes-validations': rules };
  },
});
