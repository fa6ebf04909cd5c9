import { Inject, Module } from '@nestjs/common';
import type { DynamicModule, OnApplicationShutdown } from '@nestjs/common';
import { MySQLDatabase } from './database/mysql-database.js';
import { MYSQL_SCHEMA_OPTIONS } from './database/mysql-schema-options.js';
import type { MySQLSchemaOptions } from './database/mysql-schema-options.js';
import type { MySQLSettings } from './database/mysql-settings.js';
import { SchemaDependent } from './dependents/schema.dependent.js';
import { SecretDependent } from './dependents/secret.dependent.js';
import { UserDependent } from './dependents/user.dependent.js';
import { MySQLSchemaReconciler } from './mysql-schema.reconciler.js';

/** Default of {@link MySQLSchemaModuleOptions.pollPeriodMs}. */
export const DEFAULT_POLL_PERIOD_MS = 30_000;

/** Options of {@link MySQLSchemaModule.forRoot}. */
export interface MySQLSchemaModuleOptions {
  /** The database. Required. */
  mysql: MySQLSettings;
  /** How often each resource's schema and user are read. Defaults to 30,000 ms. */
  pollPeriodMs?: number;
}

/** Closes the pool once the operator has stopped (after `beforeApplicationShutdown`). */
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(MySQLDatabase) private readonly db: MySQLDatabase) {}
  async onApplicationShutdown(): Promise<void> {
    await this.db.close();
  }
}

/** The MySQLSchema feature: the database pool, the three dependents and the reconciler. */
@Module({})
export class MySQLSchemaModule {
  /** The module for one database. */
  static forRoot(options: MySQLSchemaModuleOptions): DynamicModule {
    const resolved: MySQLSchemaOptions = { pollPeriodMs: options.pollPeriodMs ?? DEFAULT_POLL_PERIOD_MS };
    return {
      module: MySQLSchemaModule,
      providers: [
        { provide: MYSQL_SCHEMA_OPTIONS, useValue: resolved },
        { provide: MySQLDatabase, useFactory: () => new MySQLDatabase(options.mysql) },
        DatabaseCloser,
        SecretDependent,
        SchemaDependent,
        UserDependent,
        MySQLSchemaReconciler,
      ],
      exports: [MySQLDatabase],
    };
  }
}
