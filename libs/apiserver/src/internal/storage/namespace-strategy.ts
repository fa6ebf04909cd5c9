// The rules of kube's namespace strategy (pkg/registry/core/namespace/strategy.go) and its validation.
import type { JsonObject, StatusCause } from '../../types.js';
import { clone, isObject } from '../common/json.js';
import type { ResourceType } from '../resources/resource-type.js';
import { kubeFinalizerNameCauses, validateKey } from './names.js';

/** The finalizer kube-apiserver puts in every namespace's spec.finalizers (the namespace controller's). */
export const NAMESPACE_FINALIZER = 'kubernetes';

/** Whether a resource type is the core Namespace. */
export function isNamespaceType(rt: Pick<ResourceType, 'group' | 'plural'>): boolean {
  return rt.group === '' && rt.plural === 'namespaces';
}

/** A namespace's spec.finalizers (the strings among them; none when absent). */
export function namespaceFinalizers(obj: JsonObject): string[] {
  const spec = isObject(obj.spec) ? obj.spec : undefined;
  return Array.isArray(spec?.finalizers)
    ? spec.finalizers.filter((f): f is string => typeof f === 'string')
    : [];
}

/**
 * The spec a namespace is created with, as kube's namespace strategy PrepareForCreate sets it: the
 * finalizers sent are kept and `kubernetes` is appended when missing.
 */
export function namespaceSpecOnCreate(obj: JsonObject): JsonObject {
  const finalizers = namespaceFinalizers(obj);
  return {
    finalizers: finalizers.includes(NAMESPACE_FINALIZER) ? finalizers : [...finalizers, NAMESPACE_FINALIZER],
  };
}

/**
 * A namespace update other than through the finalize subresource keeps the stored spec.finalizers (kube's
 * namespace strategy PrepareForUpdate): sets them on `obj` from `old`.
 */
export function keepNamespaceFinalizers(obj: JsonObject, old: JsonObject): void {
  const spec: JsonObject = isObject(obj.spec) ? obj.spec : {};
  const before = isObject(old.spec) ? old.spec.finalizers : undefined;
  if (before === undefined) delete spec.finalizers;
  else spec.finalizers = clone(before);
  obj.spec = spec;
}

/**
 * Validates a namespace's spec.finalizers as kube's validateFinalizerName (pkg/apis/core/validation):
 * each is a qualified name, and one without a domain is a standard finalizer. Create reports them on
 * `spec.finalizers` (ValidateNamespace), the finalize subresource on `spec.finalizers[i]`
 * (ValidateNamespaceFinalizeUpdate).
 */
export function validateNamespaceFinalizers(obj: JsonObject, indexed: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  namespaceFinalizers(obj).forEach((f, i) => {
    const field = indexed ? `spec.finalizers[${i}]` : 'spec.finalizers';
    if (f === '')
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: 'Invalid value: "": name part must be non-empty',
      });
    else causes.push(...validateKey(f, field));
    causes.push(...kubeFinalizerNameCauses(f, field));
  });
  return causes;
}

/**
 * Validates a write of a namespace's status subresource as kube's ValidateNamespaceStatusUpdate
 * (pkg/apis/core/validation): the phase is Active while the namespace is not being deleted and
 * Terminating once it is.
 */
export function validateNamespaceStatus(obj: JsonObject, deleting: boolean): StatusCause[] {
  const status = isObject(obj.status) ? obj.status : {};
  const phase = typeof status.phase === 'string' ? status.phase : '';
  const want = deleting ? 'Terminating' : 'Active';
  if (phase === want) return [];
  const rule = deleting
    ? "may only be 'Terminating' if `deletionTimestamp` is not empty"
    : "may only be 'Active' if `deletionTimestamp` is empty";
  return [
    {
      reason: 'FieldValueInvalid',
      field: 'status.Phase',
      message: `Invalid value: ${JSON.stringify(phase)}: ${rule}`,
    },
  ];
}
