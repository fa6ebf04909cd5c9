import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { OperatorModule, resourceContextMixin } from '@tosdk/nestjs';
import { OperatorHealthModule } from '@tosdk/nestjs/health';
import { OperatorMetricsModule } from '@tosdk/nestjs/metrics';
import type { OperatorModuleOptions } from '@tosdk/nestjs';
import { mysqlSettingsFromEnvironment } from './database/mysql-settings.js';
import type { MySQLSettings } from './database/mysql-settings.js';
import { MySQLSchemaModule } from './mysql-schema.module.js';

/** Options of {@link MySQLSchemaAppModule.forRoot}. */
export interface MySQLSchemaAppOptions {
  /** The database. Defaults to the `MYSQL_*` variables. */
  mysql?: MySQLSettings;
  /** How often each resource's schema and user are read. Defaults to `MYSQL_SCHEMA_POLL_PERIOD_MS`, else 30,000 ms. */
  pollPeriodMs?: number;
  /** Options of the OperatorModule (cluster, leader election, per-controller retry, ...). Defaults to none (`TOSDK_*` variables and `KUBECONFIG` apply). */
  operator?: OperatorModuleOptions;
  /** pino level. Defaults to `LOG_LEVEL`, else `info`. */
  logLevel?: string;
  /** Where pino writes JSON lines. Defaults to standard output. */
  logStream?: NodeJS.WritableStream;
  /** Also export prom-client's default process metrics. Defaults to true. */
  defaultMetrics?: boolean;
}

/**
 * The MySQL schema operator as a Nest application: the OperatorModule running the MySQLSchema
 * controller, `/health/liveness` and `/health/readiness`, `/metrics`, and pino logs carrying the
 * resource being reconciled.
 */
@Module({})
export class MySQLSchemaAppModule {
  /**
   * The application module.
   * @throws MySQLNotConfiguredError when no `mysql` is given and `MYSQL_HOST` is unset; InvalidMySQLSettingError for a bad `MYSQL_*` value.
   */
  static forRoot(options: MySQLSchemaAppOptions = {}): DynamicModule {
    const level = options.logLevel ?? process.env['LOG_LEVEL'] ?? 'info';
    const pinoHttp = { level, mixin: resourceContextMixin, autoLogging: false };
    const poll = process.env['MYSQL_SCHEMA_POLL_PERIOD_MS']?.trim();
    return {
      module: MySQLSchemaAppModule,
      imports: [
        LoggerModule.forRoot({ pinoHttp: options.logStream ? [pinoHttp, options.logStream] : pinoHttp }),
        OperatorModule.forRoot(options.operator ?? {}),
        OperatorHealthModule.forRoot(),
        OperatorMetricsModule.forRoot({ defaultMetrics: options.defaultMetrics ?? true }),
        MySQLSchemaModule.forRoot({
          mysql: options.mysql ?? mysqlSettingsFromEnvironment(),
          pollPeriodMs: options.pollPeriodMs ?? (poll ? Number(poll) : undefined),
        }),
      ],
    };
  }
}
