import type { LogFields, Logger } from '../util/logger.js';
import { noopLogger } from '../util/logger.js';
import { currentResourceContext } from './resource-context.js';

function merged(fields: LogFields | undefined): LogFields | undefined {
  const context = currentResourceContext();
  if (!context) return fields;
  return fields ? { ...context, ...fields } : { ...context };
}

/**
 * A logger that adds the current resource context (see {@link currentResourceContext}) to every line
 * written while a reconciliation runs, whoever writes it: the reconciler through `context.logger`,
 * the framework, or the client. The operator wraps its logger with this.
 */
export function resourceContextLogger(base: Logger): Logger {
  if (base === noopLogger) return base;
  return {
    debug: (message, fields) => base.debug(message, merged(fields)),
    info: (message, fields) => base.info(message, merged(fields)),
    warn: (message, fields) => base.warn(message, merged(fields)),
    error: (message, fields) => base.error(message, merged(fields)),
    child: (bindings) => resourceContextLogger(base.child(bindings)),
  };
}
