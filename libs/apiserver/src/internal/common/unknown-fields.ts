import { errors } from './errors.js';

/**
 * Reports the fields decoding `kind` at `version` dropped (`spec.foo`) under the write's
 * `fieldValidation` (`policy`, `Warn` when the request gave none), as kube-apiserver does: under `Strict` the write is refused (400, kube's strict decoding text), under `Warn` each becomes
 * an `unknown field "spec.foo"` warning pushed to `warnings`, under `Ignore` nothing is said.
 * @throws ApiError (400) under `Strict` when `unknown` is not empty.
 */
export function reportUnknownFields(
  kind: string,
  version: string,
  unknown: readonly string[],
  policy: string,
  warnings: string[] | undefined,
): void {
  if (unknown.length === 0 || policy === 'Ignore') return;
  const fields = unknown.map((f) => `unknown field "${f}"`);
  if (policy === 'Strict') {
    throw errors.badRequest(
      `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${fields.join(', ')}`,
    );
  }
  warnings?.push(...fields);
}
