import { Type } from '@sinclair/typebox';
import type { SchemaOptions, TArray, TNull, TSchema, TUnion, TUnsafe } from '@sinclair/typebox';
import type { ValidationRule } from './resource-definition.js';

/**
 * TypeBox builders for the Kubernetes schema extensions (`x-kubernetes-*`), for use inside the
 * `spec`/`status` schemas of {@link defineResource}. Everything else is plain TypeBox
 * (`Type.Object`, `Type.String({ format: 'date-time' })`, `Type.Union([Type.Literal('a'), ...])`
 * becomes an `enum`, `{ default: ... }`, `{ description: ... }`).
 */
export const K8s = Object.freeze({
  /** `x-kubernetes-int-or-string`: an integer or a string (ports, quantities such as `50%`). */
  IntOrString(options: SchemaOptions = {}): TUnsafe<number | string> {
    return Type.Unsafe<number | string>({ ...options, 'x-kubernetes-int-or-string': true });
  },

  /** An object whose fields are kept as they are (`x-kubernetes-preserve-unknown-fields`), typed `T`. */
  PreserveUnknownFields<T = Record<string, unknown>>(options: SchemaOptions = {}): TUnsafe<T> {
    return Type.Unsafe<T>({ ...options, type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  },

  /** A complete Kubernetes object (`x-kubernetes-embedded-resource`: apiVersion, kind, metadata). */
  EmbeddedResource<T = Record<string, unknown>>(options: SchemaOptions = {}): TUnsafe<T> {
    return Type.Unsafe<T>({
      ...options,
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    });
  },

  /** A list merged by key (`x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`); keys must be required fields of the items. */
  ListMap<T extends TSchema>(items: T, keys: string[], options: SchemaOptions = {}): TArray<T> {
    return Type.Array(items, {
      ...options,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': keys,
    });
  },

  /** A list of unique scalars merged as a set (`x-kubernetes-list-type: set`). */
  ListSet<T extends TSchema>(items: T, options: SchemaOptions = {}): TArray<T> {
    return Type.Array(items, { ...options, 'x-kubernetes-list-type': 'set' });
  },

  /** A list replaced as a whole on apply (`x-kubernetes-list-type: atomic`). */
  ListAtomic<T extends TSchema>(items: T, options: SchemaOptions = {}): TArray<T> {
    return Type.Array(items, { ...options, 'x-kubernetes-list-type': 'atomic' });
  },

  /** `T` or `null` (`nullable: true` in the CRD). */
  Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
    return Type.Union([schema, Type.Null()]);
  },

  /**
   * Schema options carrying CEL rules (`x-kubernetes-validations`), to spread into a schema's options:
   * `Type.Object({...}, { ...K8s.rules({ rule: 'self.min <= self.max', message: 'min above max' }) })`.
   */
  rules(...rules: ValidationRule[]): { 'x-kubernetes-validations': ValidationRule[] } {
    return { 'x-kubernetes-validations': rules };
  },
});
