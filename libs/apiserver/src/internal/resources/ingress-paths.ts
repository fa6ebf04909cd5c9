import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';

/** The path types networking.k8s.io/v1 knows, sorted as kube lists them in its message. */
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

/**
 * kube-apiserver's check of an Ingress's HTTP paths' `pathType` (pkg/apis/networking/validation
 * validateHTTPIngressPath): networking.k8s.io/v1 has no default for it (v1beta1 defaulted it to
 * ImplementationSpecific), so a path without one is a 422 `Required value: pathType must be
 * specified`, and an unknown one `Unsupported value`. Checked on create and update.
 */
export function validateIngressPathTypes(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  rules.forEach((rule, i) => {
    const http = isObject(rule) ? rule.http : undefined;
    const paths = isObject(http) && Array.isArray(http.paths) ? http.paths : [];
    paths.forEach((path, j) => {
      if (!isObject(path)) return;
      const field = `spec.rules[${i}].http.paths[${j}].pathType`;
      const type = path.pathType;
      if (type === undefined || type === '') {
        causes.push({
          reason: 'FieldValueRequired',
          field,
          message: 'Required value: pathType must be specified',
        });
      } else if (typeof type !== 'string' || !PATH_TYPES.includes(type)) {
        causes.push({
          reason: 'FieldValueNotSupported',
          field,
          message: `Unsupported value: ${JSON.stringify(type)}: supported values: ${PATH_TYPES.map((t) => JSON.stringify(t)).join(', ')}`,
        });
      }
    });
  });
  return causes;
}
