import type { JsonObject } from '../../types.js';
import { errors } from '../common/errors.js';
import { isObject } from '../common/json.js';
import type { Peers } from '../common/peers.js';
import type { ResourceType, ResourceVersion } from '../resources/resource-type.js';
import { isNamespaceType } from '../storage/namespace-strategy.js';

/** A predicate over objects built from label and field selectors. */
export type ObjectFilter = (obj: JsonObject) => boolean;

/** Builds the filter of `labelSelector` and `fieldSelector`; undefined when both are empty. 400 on bad input. */
export function buildFilter(
  rt: ResourceType,
  version: ResourceVersion,
  peers: Peers,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): ObjectFilter | undefined {
  const preds: ObjectFilter[] = [];
  if (labelSelector !== undefined && labelSelector.trim() !== '') {
    const sel = peers.selectors;
    const parsed = sel.parseLabelSelector(labelSelector);
    preds.push((o) => sel.matchesLabels(parsed, labelsOf(o)));
  }
  // only the empty selector selects everything: blanks are a term kube's parser does not understand
  if (fieldSelector !== undefined && fieldSelector !== '') {
    const reqs = peers.selectors.parseFieldSelector(fieldSelector);
    // a kind with a field label conversion of its own (custom resources, and the built-ins with extra
    // fields) refuses others its way; every other kind takes metadata.name and metadata.namespace
    // only, as apimachinery's DefaultMetaV1FieldSelectorConversion words it
    const ownLabels = rt.crdName !== undefined || version.selectableFields.length > 0;
    // a Namespace's conversion and a cluster-scoped custom resource's take no metadata.namespace
    const namespaceLabel = !isNamespaceType(rt) && (rt.crdName === undefined || rt.namespaced);
    for (const r of reqs) {
      const f = r.field;
      let get: (o: JsonObject) => string | undefined;
      if (f === 'metadata.name') get = (o) => strField(o, 'name');
      else if (f === 'metadata.namespace' && namespaceLabel) get = (o) => strField(o, 'namespace') ?? '';
      else if (version.selectableFields.includes(f) && version.fieldValue) {
        const fv = version.fieldValue;
        get = (o) => fv(o, f);
      } else if (ownLabels || f === 'metadata.namespace') {
        throw errors.badRequest(`field label not supported: ${f}`);
      } else {
        throw errors.badRequest(
          `${JSON.stringify(f)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
        );
      }
      const want = r.value;
      preds.push(r.op === '=' ? (o) => (get(o) ?? '') === want : (o) => (get(o) ?? '') !== want);
    }
  }
  if (preds.length === 0) return undefined;
  if (preds.length === 1) return preds[0];
  return (o) => preds.every((p) => p(o));
}

function labelsOf(o: JsonObject): Record<string, string> | undefined {
  const m = o.metadata;
  if (!isObject(m) || !isObject(m.labels)) return undefined;
  return m.labels as Record<string, string>;
}

function strField(o: JsonObject, k: string): string | undefined {
  const m = o.metadata;
  if (!isObject(m)) return undefined;
  const v = m[k];
  return typeof v === 'string' ? v : undefined;
}
