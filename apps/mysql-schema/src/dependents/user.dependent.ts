import { Inject, Injectable } from '@nestjs/common';
import { ResourceTypes } from '@tosdk/core';
import type { Context } from '@tosdk/core';
import { MySQLDatabase } from '../database/mysql-database.js';
import type { UserState } from '../database/mysql-database.js';
import { MYSQL_SCHEMA_OPTIONS } from '../database/mysql-schema-options.js';
import type { MySQLSchemaOptions } from '../database/mysql-schema-options.js';
import { schemaName, secretName, userName } from '../mysql-schema-names.js';
import type { MySQLSchema } from '../mysql-schema.resource.js';
import { DatabasePollingDependent } from './database-polling-dependent.js';
import { PASSWORD_KEY } from './secret.dependent.js';

/** Name of the user dependent in the workflow. */
export const USER_DEPENDENT = 'user';

/** The credentials Secret is not in the cache yet (retried; the Secret's own event reconciles too). */
export class CredentialsNotFoundError extends Error {
  /** Stable error code. */
  readonly code = 'CredentialsNotFound';
  constructor(readonly secret: string) {
    super(`the Secret ${secret} with the user's password is not there yet`);
    this.name = 'CredentialsNotFoundError';
  }
}

/**
 * The database user of a `MySQLSchema`, with every privilege on its schema and the password of the
 * credentials Secret. Depends on the schema (and the Secret) in the workflow; dropped on cleanup
 * before the schema; polled per resource like the schema. Never updated: the password is set once,
 * when the user is created.
 */
@Injectable()
export class UserDependent extends DatabasePollingDependent<UserState> {
  constructor(
    private readonly db: MySQLDatabase,
    @Inject(MYSQL_SCHEMA_OPTIONS) options: MySQLSchemaOptions,
  ) {
    super(USER_DEPENDENT, options.pollPeriodMs, (u) => `${u.name}@${u.host}`);
  }

  async fetchResources(resource: MySQLSchema): Promise<UserState[]> {
    const user = await this.db.user(userName(resource));
    return user ? [user] : [];
  }

  protected desired(resource: MySQLSchema): UserState {
    return { name: userName(resource), host: this.db.settings.userHost };
  }

  /** @throws CredentialsNotFoundError when the Secret is not cached yet. */
  async create(desired: UserState, resource: MySQLSchema, context: Context<MySQLSchema>): Promise<UserState> {
    const name = secretName(resource);
    const secret = context
      .getSecondaryResources(ResourceTypes.Secret)
      .find((s) => s.metadata?.name === name && s.metadata?.namespace === resource.metadata?.namespace);
    const encoded = secret?.data?.[PASSWORD_KEY];
    if (!encoded) throw new CredentialsNotFoundError(name);
    await this.db.createUser(
      desired.name,
      Buffer.from(encoded, 'base64').toString('utf8'),
      schemaName(resource),
    );
    const written = (await this.db.user(desired.name)) ?? desired;
    return written;
  }

  /** Drops the user by name, whether or not the last poll saw it (cleanup must leave nothing). */
  override async delete(resource: MySQLSchema, context: Context<MySQLSchema>): Promise<void> {
    await this.db.dropUser(userName(resource));
    await super.delete(resource, context);
  }

  protected override async deleteResource(user: UserState): Promise<void> {
    await this.db.dropUser(user.name);
  }
}
