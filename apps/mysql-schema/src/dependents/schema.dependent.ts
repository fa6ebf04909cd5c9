import { Inject, Injectable } from '@nestjs/common';
import type { Context } from '@tosdk/core';
import { MySQLDatabase } from '../database/mysql-database.js';
import type { SchemaState } from '../database/mysql-database.js';
import { MySQLQueryError } from '../database/mysql-errors.js';
import { MYSQL_SCHEMA_OPTIONS } from '../database/mysql-schema-options.js';
import type { MySQLSchemaOptions } from '../database/mysql-schema-options.js';
import { schemaName, userName } from '../mysql-schema-names.js';
import { ownerMark, SchemaNotOwnedError } from '../mysql-schema-ownership.js';
import type { MySQLSchema } from '../mysql-schema.resource.js';
import { encodingOf, sameEncoding, UnsupportedEncodingError } from '../mysql-schema-validation.js';
import { DatabasePollingDependent } from './database-polling-dependent.js';

/** Name of the schema dependent in the workflow. */
export const SCHEMA_DEPENDENT = 'schema';

/**
 * The database schema of a `MySQLSchema` (JOSDK's `SchemaDependentResource`): created with the
 * resource's encoding and its {@link ownerMark} as comment, its encoding changed when the spec
 * changes, dropped on cleanup; polled per resource, so a schema dropped behind the operator's back
 * is created again. A schema of that name the operator did not make (another comment, or none) is
 * never altered nor dropped: {@link SchemaNotOwnedError}. An unmarked schema whose user (the
 * resource's user name) holds privileges on it was made by an earlier version of the operator and
 * is marked.
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
    return { name: schemaName(resource), encoding: encodingOf(resource), comment: ownerMark(resource) };
  }

  protected override matchDesired(actual: SchemaState, desired: SchemaState): boolean {
    return sameEncoding(actual.encoding, desired.encoding) && actual.comment === desired.comment;
  }

  /** @throws SchemaNotOwnedError when someone else created a schema of that name meanwhile. */
  async create(desired: SchemaState, resource: MySQLSchema): Promise<SchemaState> {
    try {
      await this.unlessUnsupported(desired.encoding, () =>
        this.db.createSchema(desired.name, desired.encoding, desired.comment),
      );
    } catch (error) {
      const existing =
        error instanceof MySQLQueryError && error.driverCode === 'ER_DB_CREATE_EXISTS'
          ? await this.db.schema(desired.name)
          : undefined;
      if (!existing) throw error;
      return this.update(existing, desired, resource);
    }
    return this.readBack(desired);
  }

  /** @throws SchemaNotOwnedError when the schema is not this resource's. */
  async update(actual: SchemaState, desired: SchemaState, resource: MySQLSchema): Promise<SchemaState> {
    if (actual.comment !== desired.comment) {
      if (!(await this.madeByEarlierVersion(actual, resource)))
        throw new SchemaNotOwnedError(actual.name, actual.comment, desired.comment);
      await this.db.setSchemaComment(desired.name, desired.comment);
    }
    if (!sameEncoding(actual.encoding, desired.encoding)) {
      await this.unlessUnsupported(desired.encoding, () =>
        this.db.alterSchemaEncoding(desired.name, desired.encoding),
      );
    }
    return this.readBack(desired);
  }

  /** Drops the resource's schema (read by name: cleanup must leave nothing), only when it is the resource's own. */
  override async delete(resource: MySQLSchema, context: Context<MySQLSchema>): Promise<void> {
    await this.dropIfOwned(schemaName(resource), resource);
    await super.delete(resource, context);
  }

  protected override async deleteResource(schema: SchemaState, resource: MySQLSchema): Promise<void> {
    await this.dropIfOwned(schema.name, resource);
  }

  private async dropIfOwned(name: string, resource: MySQLSchema): Promise<void> {
    const current = await this.db.schema(name);
    if (!current) return;
    if (current.comment === ownerMark(resource) || (await this.madeByEarlierVersion(current, resource)))
      await this.db.dropSchema(name);
  }

  // versions before the ownership mark created schemas without a comment, and their users with
  // privileges on them
  private async madeByEarlierVersion(actual: SchemaState, resource: MySQLSchema): Promise<boolean> {
    return actual.comment === '' && (await this.db.hasSchemaGrant(userName(resource), actual.name));
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
