/**
 * `@tosdk/nestjs/health`: Terminus health of the operator (JOSDK's runtime-info probes) as its own
 * entry point, like `@nestjs/terminus` is its own package: only apps that import it need
 * `@nestjs/terminus` installed.
 *
 * ```ts
 * import { OperatorHealthModule } from '@tosdk/nestjs/health';
 * ```
 *
 * @packageDocumentation
 */

export { OperatorHealthIndicator } from './operator-health.indicator.js';
export { OperatorHealthController } from './operator-health.controller.js';
export { OperatorHealthModule } from './operator-health.module.js';
export type {
  OperatorHealthModuleAsyncOptions,
  OperatorHealthModuleOptions,
  OperatorHealthPaths,
} from './operator-health.module.js';
