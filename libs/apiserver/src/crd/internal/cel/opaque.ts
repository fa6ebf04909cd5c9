/**
 * Values of the Kubernetes CEL types that @bufbuild/cel has no native type for (optional, IP, CIDR,
 * URL, Quantity, format). Each is a one-entry CEL map under a reserved key holding a canonical
 * payload, so CEL equality compares them by value and the library's methods recognise them.
 */
import { celError, celMap, isCelMap } from '@bufbuild/cel';
import type { CelError, CelInput, CelList, CelMap, CelValue } from '@bufbuild/cel';

/** The reserved keys, one per Kubernetes type. */
export type OpaqueTag = 'optional' | 'ip' | 'cidr' | 'url' | 'quantity' | 'format';

const keyOf = (tag: OpaqueTag): string => `\u0000k8s.${tag}`;

/** Wraps a payload as an opaque value of `tag`. */
export function opaque(tag: OpaqueTag, payload: CelInput): CelMap {
  return celMap(new Map([[keyOf(tag), payload]]));
}

/** The payload of an opaque value of `tag`, or undefined when `v` is not one. */
export function payloadOf<T>(tag: OpaqueTag, v: CelValue | undefined): T | undefined {
  if (v === undefined || !isCelMap(v) || v.size !== 1) return undefined;
  const p = v.get(keyOf(tag));
  return p === undefined ? undefined : (p as T);
}

/** The payload of `v` as `tag`; an error naming the function when `v` is something else. */
export function expect<T>(tag: OpaqueTag, v: CelValue | undefined, fn: string): T {
  const p = payloadOf<T>(tag, v);
  if (p === undefined) throw noOverload(fn);
  return p;
}

/** cel-go's error for a call without a matching overload. */
export function noOverload(fn: string): CelError {
  return celError(`no such overload: ${fn}`);
}

/** An optional with a value (`optional.of`). */
export function some(v: CelInput): CelMap {
  return opaque('optional', [v]);
}

/** The empty optional (`optional.none()`). */
export function none(): CelMap {
  return opaque('optional', []);
}

/** The list inside an optional ([] or [value]). */
export function optionalPayload(v: CelValue | undefined): readonly unknown[] | undefined {
  const p = payloadOf<unknown[] | CelList>('optional', v);
  if (p === undefined) return undefined;
  return Array.isArray(p) ? p : [...p];
}
