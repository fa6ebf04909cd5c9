import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { OperatorModule, resourceContextMixin } from '@tosdk/nestjs';
import type { OperatorModuleOptions } from '@tosdk/nestjs';
import { OperatorHealthModule } from '@tosdk/nestjs/health';
import { OperatorMetricsModule } from '@tosdk/nestjs/metrics';
import { TomcatModule } from './tomcat.module.js';

/** Options of {@link TomcatAppModule.forRoot}. */
export interface TomcatAppOptions {
  /** Options of the one OperatorModule both controllers run in. Defaults to none (`TOSDK_*` variables and `KUBECONFIG` apply). */
  operator?: OperatorModuleOptions;
  /** pino level. Defaults to `LOG_LEVEL`, else `info`. */
  logLevel?: string;
  /** Where pino writes JSON lines. Defaults to standard output. */
  logStream?: NodeJS.WritableStream;
  /** Also export prom-client's default process metrics. Defaults to true. */
  defaultMetrics?: boolean;
}

/**
 * The Tomcat operator as a Nest application: one OperatorModule running both controllers (Tomcat
 * and Webapp), `/health/liveness` and `/health/readiness`, `/metrics` (label `controller` tells the
 * two apart), and pino logs carrying the resource being reconciled.
 */
@Module({})
export class TomcatAppModule {
  /** The application module. */
  static forRoot(options: TomcatAppOptions = {}): DynamicModule {
    const level = options.logLevel ?? process.env['LOG_LEVEL'] ?? 'info';
    const pinoHttp = { level, mixin: resourceContextMixin, autoLogging: false };
    return {
      module: TomcatAppModule,
      imports: [
        LoggerModule.forRoot({ pinoHttp: options.logStream ? [pinoHttp, options.logStream] : pinoHttp }),
        OperatorModule.forRoot(options.operator ?? {}),
        OperatorHealthModule.forRoot(),
        OperatorMetricsModule.forRoot({ defaultMetrics: options.defaultMetrics ?? true }),
        TomcatModule,
      ],
    };
  }
}
