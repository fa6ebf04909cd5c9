import { Inject, Injectable } from '@nestjs/common';
import type { Context } from '@tosdk/core';
import { MySQLDatabase } from '../database/mysql-database.js';
import type { SchemaState } from '../database/mysql-database.js';
import { MySQLQueryError } from '../database/mysql-errors.js';
import { MYSQL_SCHEMA_OPTIONS } from '../database/mysql-schema-options.js';
import type { MySQLSchemaOptions } from '../database/mysql-schema-options.js';
import { schemaName } from '../mysql-schema-names.js';
import type { MySQLSchema } from '../mysql-schema.resource.js';
import { encodingOf, sameEncoding, UnsupportedEncodingError } from '../mysql-schema-validation.js';
import { DatabasePollingDependent } from './database-polling-dependent.js';

/** Name of the schema dependent in the workflow. */
export const SCHEMA_DEPENDENT = 'schema';

/**
 * The database schema of a `MySQLSchema` (JOSDK's `SchemaDependentResource`): created with the
 * resource's encoding, its encoding changed when the spec changes, dropped on cleanup; polled per
 * resource, so a schema dropped behind the operator's back is created again.
 */
@Injectable()
export class SchemaDependent extends DatabasePollingDependent<SchemaState> {
  constructor(
    private readonly db: MySQLDatabase,
    @Inject(MYSQL_SCHEMA_OPTIONS) options: MySQLSchemaOptions,
  ) {
    super(SCHEMA_DEPENDENT, options.pollPeriodMs, (s) => s.name);
  }

  async fetchResources(resource: MySQLSchema): Promise<SchemaState[]> {
    const schema = await this.db.schema(schemaName(resource));
    return schema ? [schema] : [];
  }

  /** @throws UnsupportedEncodingError for a malformed encoding. */
  protected desired(resource: MySQLSchema): SchemaState {
    return { name: schemaName(resource), encoding: encodingOf(resource) };
  }

  protected override matchDesired(actual: SchemaState, desired: SchemaState): boolean {
    return sameEncoding(actual.encoding, desired.encoding);
  }

  async create(desired: SchemaState): Promise<SchemaState> {
    await this.unlessUnsupported(desired.encoding, () =>
      this.db.createSchema(desired.name, desired.encoding),
    );
    return this.readBack(desired);
  }

  async update(_actual: SchemaState, desired: SchemaState): Promise<SchemaState> {
    await this.unlessUnsupported(desired.encoding, () =>
      this.db.alterSchemaEncoding(desired.name, desired.encoding),
    );
    return this.readBack(desired);
  }

  /** Drops the schema by name, whether or not the last poll saw it (cleanup must leave nothing). */
  override async delete(resource: MySQLSchema, context: Context<MySQLSchema>): Promise<void> {
    await this.db.dropSchema(schemaName(resource));
    await super.delete(resource, context);
  }

  protected override async deleteResource(schema: SchemaState): Promise<void> {
    await this.db.dropSchema(schema.name);
  }

  private async readBack(desired: SchemaState): Promise<SchemaState> {
    return (await this.db.schema(desired.name)) ?? desired;
  }

  private async unlessUnsupported(encoding: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (error instanceof MySQLQueryError && error.driverCode === 'ER_UNKNOWN_CHARACTER_SET') {
        throw new UnsupportedEncodingError(encoding, `the server ${this.db.connection} does not know it`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}
