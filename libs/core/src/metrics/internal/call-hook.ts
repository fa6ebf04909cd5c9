import type { Logger } from '../../util/logger.js';

/**
 * Calls one `Metrics` hook through `call` so that it can never break the runtime: a throw is caught,
 * and a promise the hook returns (an `async` hook; the interface says `void`, TypeScript accepts it)
 * gets a rejection handler, since an unhandled rejection ends a Node process. Both are logged at
 * debug. A hook returning `undefined` (the usual case) costs one `typeof` check.
 */
export function callMetricsHook(call: () => unknown, logger: Logger): void {
  let result: unknown;
  try {
    result = call();
  } catch (error) {
    logger.debug('a metrics hook threw', { error: String(error) });
    return;
  }
  if (result !== undefined && typeof (result as PromiseLike<unknown> | null)?.then === 'function') {
    (result as PromiseLike<unknown>).then(undefined, (error: unknown) =>
      logger.debug('a metrics hook rejected', { error: String(error) }),
    );
  }
}
