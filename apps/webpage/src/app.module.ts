import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { OperatorModule, resourceContextMixin } from '@tosdk/nestjs';
import { OperatorHealthModule } from '@tosdk/nestjs/health';
import { OperatorMetricsModule } from '@tosdk/nestjs/metrics';
import type { OperatorModuleOptions } from '@tosdk/nestjs';
import { flavourFromEnvironment } from './webpage-flavour.js';
import type { WebPageFlavour } from './webpage-flavour.js';
import { WebPageModule } from './webpage.module.js';

/** Options of {@link WebPageAppModule.forRoot}. */
export interface WebPageAppOptions {
  /** Which reconciler runs. Defaults to `WEBPAGE_FLAVOUR`, else `managed`. */
  flavour?: WebPageFlavour;
  /** Options of the OperatorModule (cluster, leader election, ...). Defaults to none (`TOSDK_*` variables and `KUBECONFIG` apply). */
  operator?: OperatorModuleOptions;
  /** pino level. Defaults to `LOG_LEVEL`, else `info`. */
  logLevel?: string;
  /** Where pino writes JSON lines. Defaults to standard output. */
  logStream?: NodeJS.WritableStream;
  /** Also export prom-client's default process metrics. Defaults to true. */
  defaultMetrics?: boolean;
}

/**
 * The WebPage operator as a Nest application: the OperatorModule running the reconciler of the
 * chosen flavour, `/health/liveness` and `/health/readiness`, `/metrics`, and pino logs carrying
 * the resource being reconciled.
 */
@Module({})
export class WebPageAppModule {
  /** The application module. @throws InvalidFlavourError when `WEBPAGE_FLAVOUR` names no flavour. */
  static forRoot(options: WebPageAppOptions = {}): DynamicModule {
    const flavour = options.flavour ?? flavourFromEnvironment();
    const level = options.logLevel ?? process.env['LOG_LEVEL'] ?? 'info';
    const pinoHttp = { level, mixin: resourceContextMixin, autoLogging: false };
    return {
      module: WebPageAppModule,
      imports: [
        LoggerModule.forRoot({ pinoHttp: options.logStream ? [pinoHttp, options.logStream] : pinoHttp }),
        OperatorModule.forRoot(options.operator ?? {}),
        OperatorHealthModule.forRoot(),
        OperatorMetricsModule.forRoot({ defaultMetrics: options.defaultMetrics ?? true }),
        WebPageModule.forFlavour(flavour),
      ],
    };
  }
}
