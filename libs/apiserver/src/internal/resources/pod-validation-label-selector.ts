import type { StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { labelKeyErrors, labelValueErrors } from '../../selectors/label-validation.js';
import { forbidden, invalid, objects, required } from './field-causes.js';

// apimachinery meta/v1/validation ValidateLabelSelector, used by workload selectors and by the label
// selectors inside a pod spec (pod affinity terms, topology spread constraints).

/** ValidateLabelSelector: keys and values of matchLabels, each requirement's key, operator and values. */
export function labelSelectorCauses(sel: unknown, path: string): StatusCause[] {
  if (!isObject(sel)) return [];
  const causes: StatusCause[] = [];
  const matchLabels = isObject(sel.matchLabels) ? sel.matchLabels : {};
  for (const [k, v] of Object.entries(matchLabels)) {
    for (const m of labelKeyErrors(k)) causes.push(invalid(`${path}.matchLabels`, k, m));
    if (typeof v === 'string')
      for (const m of labelValueErrors(v)) causes.push(invalid(`${path}.matchLabels`, v, m));
  }
  objects(sel.matchExpressions).forEach((req, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(req.values) ? req.values : [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          causes.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          causes.push(
            forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          );
        break;
      default:
        causes.push(invalid(`${at}.operator`, req.operator, 'not a valid selector operator'));
    }
    if (typeof req.key === 'string')
      for (const m of labelKeyErrors(req.key)) causes.push(invalid(`${at}.key`, req.key, m));
    values.forEach((v, j) => {
      if (typeof v === 'string')
        for (const m of labelValueErrors(v)) causes.push(invalid(`${at}.values[${j}]`, v, m));
    });
  });
  return causes;
}
