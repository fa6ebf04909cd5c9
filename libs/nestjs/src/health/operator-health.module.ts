import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OperatorHealthController } from './operator-health.controller.js';
import { OperatorHealthIndicator } from './operator-health.indicator.js';

/** Options of {@link OperatorHealthModule.forRoot}. */
export interface OperatorHealthModuleOptions {
  /** Serve `/health/liveness` and `/health/readiness` with {@link OperatorHealthController}. Defaults to true; false to use your own controller. */
  controller?: boolean;
}

/**
 * Terminus health of the operator: exports {@link OperatorHealthIndicator} and (by default) serves
 * the probes. Needs the `Operator` (a global `OperatorModule`, the default).
 */
@Module({})
export class OperatorHealthModule {
  /** The module, with or without the ready-made controller. */
  static forRoot(options: OperatorHealthModuleOptions = {}): DynamicModule {
    return {
      module: OperatorHealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      providers: [OperatorHealthIndicator],
      controllers: options.controller === false ? [] : [OperatorHealthController],
      exports: [OperatorHealthIndicator, TerminusModule],
    };
  }
}
