import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '../../types.js';
import { errors } from '../common/errors.js';
import { isObject } from '../common/json.js';
import type { Store } from '../storage/store.js';
import type { ResourceRequestInfo } from './request-info.js';

/** The pod subresources kube-apiserver connects to a kubelet for. */
const STREAMS = new Set(['log', 'exec', 'attach', 'portforward']);

/** Whether a request is for one of a pod's streaming subresources (log, exec, attach, portforward). */
export function isPodStream(info: ResourceRequestInfo): boolean {
  return (
    info.group === '' &&
    info.resource === 'pods' &&
    info.subresource !== undefined &&
    STREAMS.has(info.subresource) &&
    info.name !== undefined &&
    info.namespace !== undefined
  );
}

function containerNames(pod: JsonObject, key: 'containers' | 'initContainers'): string[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const list = Array.isArray(spec[key]) ? (spec[key] as unknown[]) : [];
  return list.map((c) => (isObject(c) && typeof c.name === 'string' ? c.name : ''));
}

/**
 * The container a request names, checked as kube's validateContainer does: a named container must
 * exist; without a name, a pod of one container means that one.
 */
function checkContainer(pod: JsonObject, podName: string, container: string | null): void {
  const containers = containerNames(pod, 'containers');
  const init = containerNames(pod, 'initContainers');
  if (container !== null && container !== '') {
    if (!containers.includes(container) && !init.includes(container))
      throw errors.badRequest(`container ${container} is not valid for pod ${podName}`);
    return;
  }
  if (containers.length === 1) return;
  let message = `a container name must be specified for pod ${podName}, choose one of: [${containers.join(' ')}]`;
  if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
  throw errors.badRequest(message);
}

/**
 * Answers `pods/<name>/log`, `exec`, `attach` and `portforward` as kube-apiserver does for a pod that
 * has no node (pkg/registry/core/pod/strategy.go): this server schedules no pod, so a log is empty
 * (LogLocation gives no location and the stream is empty) and exec, attach and port-forward are 400
 * `pod <name> does not have a host assigned`. A missing pod is 404, an unknown container 400.
 */
export function answerPodStream(
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
): void {
  const name = info.name!;
  const pod = store.get('/pods', info.namespace!, name);
  if (pod === undefined) throw errors.notFound({ group: '', resource: 'pods', name });
  if (info.subresource === 'log') {
    if (info.verb !== 'get') throw errors.methodNotAllowed();
    checkContainer(pod, name, query.get('container'));
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '0' });
    res.end();
    return;
  }
  if (info.subresource !== 'portforward') checkContainer(pod, name, query.get('container'));
  // the body (if any) is not read: the answer does not depend on it
  req.resume();
  throw errors.badRequest(
    `pod ${name} does not have a host assigned (the in-memory API server schedules no pods and runs no containers: ${info.subresource} needs a real cluster)`,
  );
}
