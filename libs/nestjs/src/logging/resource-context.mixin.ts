import { currentResourceContext } from '@tosdk/core';

/**
 * A pino `mixin` adding the resource context of the running reconciliation (`resource.apiVersion`,
 * `resource.kind`, `resource.name`, `resource.namespace`, `resource.resourceVersion`,
 * `resource.generation`, `resource.uid` and `controller`) to every line, whoever writes it: the
 * framework, `PinoLogger`, or Nest's `Logger` routed to nestjs-pino. Outside a reconciliation it
 * adds nothing.
 *
 * ```ts
 * LoggerModule.forRoot({ pinoHttp: { mixin: resourceContextMixin } })
 * ```
 */
export function resourceContextMixin(): Record<string, unknown> {
  return { ...currentResourceContext() };
}
