import type { JsonObject } from '../../types.js';
import { rfc3339, str } from '../common/json.js';

/** The object an event is about: what kube's recorder copies into `involvedObject`. */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  /** `''` for a cluster-scoped object. */
  namespace: string;
  name: string;
  uid: string;
}

/** The component kube-controller-manager's garbage collector records its events as. */
const GC_COMPONENT = 'garbage-collector-controller';

let sequence = 0;

/**
 * The Warning event kube's garbage collector records (graph_builder.go reportInvalidNamespaceOwnerRef)
 * when `dependent` names, by uid, a namespaced owner that lives in another namespace, built as
 * client-go's event recorder builds a core/v1 Event: named `<dependent>.<hex nanoseconds>`, in the
 * dependent's namespace (`default` for a cluster-scoped dependent), count 1.
 */
export function ownerRefInvalidNamespaceEvent(
  dependent: InvolvedObject,
  ref: JsonObject,
  now: Date,
): JsonObject {
  const at = rfc3339(now);
  // nanoseconds, kept distinct for events recorded in the same millisecond
  const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(sequence++ % 1_000_000);
  const involved: JsonObject = { kind: dependent.kind, apiVersion: dependent.apiVersion };
  if (dependent.namespace !== '') involved.namespace = dependent.namespace;
  involved.name = dependent.name;
  involved.uid = dependent.uid;
  const owner = `[${str(ref.apiVersion)}/${str(ref.kind)}, namespace: ${dependent.namespace}, name: ${str(ref.name)}, uid: ${str(ref.uid)}]`;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${dependent.name}.${nanos.toString(16)}`,
      namespace: dependent.namespace === '' ? 'default' : dependent.namespace,
    },
    involvedObject: involved,
    reason: 'OwnerRefInvalidNamespace',
    message: `ownerRef ${owner} does not exist in namespace ${JSON.stringify(dependent.namespace)}`,
    source: { component: GC_COMPONENT },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    type: 'Warning',
    reportingComponent: GC_COMPONENT,
    reportingInstance: '',
  };
}
