import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { labelKeyErrors } from '../../selectors/label-validation.js';
import { invalid, required } from './field-causes.js';

// What kube-apiserver 1.32 refuses in Events beyond their schema types (pkg/apis/core/validation
// events.go: legacyValidateEvent for every Event, and ValidateEventCreate's strict rules for those
// written through events.k8s.io/v1), with kube's paths (the internal Event's field names, the
// reporting controller named as the request's version names it) and wording.

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const set = (v: unknown): boolean => v !== undefined && v !== null && v !== '';
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const LIMITS = { reportingInstance: 128, action: 128, reason: 128, message: 1024 };

/** The fields validation reads, from a core/v1 or an events.k8s.io/v1 Event. */
function fields(o: JsonObject, modern: boolean) {
  const involved = isObject(modern ? o.regarding : o.involvedObject)
    ? ((modern ? o.regarding : o.involvedObject) as JsonObject)
    : {};
  const meta = isObject(o.metadata) ? o.metadata : {};
  return {
    namespace: str(meta.namespace),
    involvedNamespace: str(involved.namespace),
    eventTime: o.eventTime,
    controller: str(modern ? o.reportingController : o.reportingComponent),
    instance: str(o.reportingInstance),
    action: str(o.action),
    reason: str(o.reason),
    message: str(modern ? o.note : o.message),
  };
}

/** legacyValidateEvent, and for an events.k8s.io/v1 Event (`modern`) ValidateEventCreate's strict rules on create. */
export function eventCauses(o: JsonObject, modern: boolean, create: boolean): StatusCause[] {
  const f = fields(o, modern);
  const causes: StatusCause[] = [];
  const mismatch = (): StatusCause =>
    invalid('involvedObject.namespace', f.involvedNamespace, 'does not match event.namespace');
  if (!set(f.eventTime)) {
    if (f.involvedNamespace === '') {
      if (f.namespace !== '' && f.namespace !== 'default') causes.push(mismatch());
    } else if (f.namespace !== f.involvedNamespace) causes.push(mismatch());
  } else {
    if (f.involvedNamespace === '' && f.namespace !== 'default' && f.namespace !== 'kube-system')
      causes.push(mismatch());
    const controllerPath = modern ? 'reportingController' : 'reportingComponent';
    if (f.controller === '') causes.push(required(controllerPath));
    for (const m of labelKeyErrors(f.controller)) causes.push(invalid(controllerPath, f.controller, m));
    if (f.instance === '') causes.push(required('reportingInstance'));
    if (bytes(f.instance) > LIMITS.reportingInstance)
      causes.push(
        invalid('reportingInstance', '', `can have at most ${LIMITS.reportingInstance} characters`),
      );
    if (f.action === '') causes.push(required('action'));
    if (bytes(f.action) > LIMITS.action)
      causes.push(invalid('action', '', `can have at most ${LIMITS.action} characters`));
    if (f.reason === '') causes.push(required('reason'));
    if (bytes(f.reason) > LIMITS.reason)
      causes.push(invalid('reason', '', `can have at most ${LIMITS.reason} characters`));
    if (bytes(f.message) > LIMITS.message)
      causes.push(invalid('message', '', `can have at most ${LIMITS.message} characters`));
  }
  if (!modern || !create) return causes;
  const series = o.series;
  if (isObject(series)) {
    if (typeof series.count !== 'number' || series.count < 2)
      causes.push(invalid('series.count', '', 'should be at least 2'));
    if (!set(series.lastObservedTime)) causes.push(required('series.lastObservedTime'));
  }
  if (!set(f.eventTime)) causes.push(required('eventTime'));
  if (o.type !== 'Normal' && o.type !== 'Warning')
    causes.push(invalid('type', '', `has invalid value: ${str(o.type)}`));
  if (set(o.deprecatedFirstTimestamp)) causes.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (set(o.deprecatedLastTimestamp)) causes.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof o.deprecatedCount === 'number' && o.deprecatedCount !== 0)
    causes.push(invalid('count', '', 'needs to be unset'));
  const source = isObject(o.deprecatedSource) ? o.deprecatedSource : {};
  if (set(source.component) || set(source.host)) causes.push(invalid('source', '', 'needs to be unset'));
  return causes;
}
