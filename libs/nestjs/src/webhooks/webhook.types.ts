import type { KubernetesObject } from '@kubernetes/client-node';

/** The operations an admission webhook can be called for. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** A group/version/kind or group/version/resource as an `AdmissionReview` names it. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** The `request` of an `AdmissionReview` (admission.k8s.io/v1), typed by the object it carries. */
export interface AdmissionRequest<T extends KubernetesObject = KubernetesObject> {
  uid: string;
  kind: GroupVersionKind;
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: { group: string; version: string; resource: string };
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: { username?: string; uid?: string; groups?: string[] };
  /** The object as it would be stored; null on DELETE. */
  object: T | null;
  /** The stored object on UPDATE and DELETE; null on CREATE. */
  oldObject: T | null;
  dryRun?: boolean;
  options?: Record<string, unknown>;
}

/** What a validating webhook may return besides allowing: warnings shown by kubectl. */
export interface AdmissionVerdict {
  /** Warnings returned to the client (`Warning:` lines of kubectl). Defaults to none. */
  warnings?: string[];
}

/**
 * A validating webhook: returns to allow (optionally with warnings), throws to deny.
 * {@link AdmissionDeniedError} denies with its message and code (403 by default); any other error
 * denies with its message and code 500, so a bug never crashes the server nor admits silently.
 */
export interface Validator<T extends KubernetesObject = KubernetesObject> {
  validate(request: AdmissionRequest<T>): void | AdmissionVerdict | Promise<void | AdmissionVerdict>;
}

/**
 * A mutating webhook: gets a deep copy of the object, changes it in place or returns a changed one;
 * the framework answers the JSON patch between the two (computed by fast-json-patch). Throwing
 * denies, as for a {@link Validator}. On DELETE (no `request.object`) it gets a copy of the object
 * being deleted (`oldObject`) to judge; changes to it are dropped, since the API server cannot
 * apply them.
 */
export interface Mutator<T extends KubernetesObject = KubernetesObject> {
  mutate(object: T, request: AdmissionRequest<T>): void | T | Promise<void | T>;
}

/**
 * A conversion webhook in controller-runtime's hub-and-spoke shape: every served version converts
 * to and from one hub version, so n versions need 2(n-1) functions instead of one per pair, and a
 * new version adds only its own two. `apiVersion`, `kind` and the metadata other than labels and
 * annotations are set by the framework; labels and annotations are the returned object's (a map it
 * removed is removed), or the original's when it returns no `metadata`.
 */
export interface Converter {
  /** Converts `object`, at `fromVersion` (never the hub), to the hub version. */
  toHub(object: KubernetesObject, fromVersion: string): KubernetesObject | Promise<KubernetesObject>;
  /** Converts `hub`, at the hub version, to `toVersion` (never the hub). */
  fromHub(hub: KubernetesObject, toVersion: string): KubernetesObject | Promise<KubernetesObject>;
}
