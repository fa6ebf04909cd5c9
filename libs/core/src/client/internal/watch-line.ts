import { KubernetesApiError, KubernetesTransportError } from '../errors.js';
import type { KubernetesStatus } from '../errors.js';
import type { WatchEvent } from '../types.js';

const WATCH_EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/**
 * Parses one line of a watch stream. An `ERROR` event becomes a typed {@link KubernetesApiError}.
 * @throws KubernetesTransportError when the line is not JSON or not a watch event.
 */
export function parseWatchLine<T>(line: string, request: { method: string; path: string }): WatchEvent<T> {
  let event: { type?: unknown; object?: unknown };
  try {
    event = JSON.parse(line) as { type?: unknown; object?: unknown };
  } catch (cause) {
    throw new KubernetesTransportError(
      `a watch line is not JSON: ${line.slice(0, 200)}`,
      'unparsable-watch-event',
      { cause, request },
    );
  }
  if (
    !event ||
    typeof event !== 'object' ||
    typeof event.type !== 'string' ||
    !WATCH_EVENT_TYPES.has(event.type) ||
    !event.object ||
    typeof event.object !== 'object'
  ) {
    throw new KubernetesTransportError(
      `a watch line is not a watch event: ${line.slice(0, 200)}`,
      'unparsable-watch-event',
      { request },
    );
  }
  if (event.type === 'ERROR') {
    const status = event.object as KubernetesStatus;
    return {
      type: 'ERROR',
      object: status,
      error: new KubernetesApiError(typeof status.code === 'number' ? status.code : 500, status, { request }),
    };
  }
  return event as WatchEvent<T>;
}
