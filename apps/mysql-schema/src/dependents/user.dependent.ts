import { Inject, Injectable } from '@nestjs/common';
import { ResourceTypes } from '@tosdk/core';
import type { Context } from '@tosdk/core';
import { MySQLDatabase } from '../database/mysql-database.js';
import type { UserState } from '../database/mysql-database.js';
import { MySQLQueryError } from '../database/mysql-errors.js';
import { MYSQL_SCHEMA_OPTIONS } from '../database/mysql-schema-options.js';
import type { MySQLSchemaOptions } from '../database/mysql-schema-options.js';
import { schemaName, secretName, userName } from '../mysql-schema-names.js';
import { ownerMark, UserNotOwnedError } from '../mysql-schema-ownership.js';
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
 * The database user of a `MySQLSchema`, with every privilege on its schema (on that schema alone: the
 * GRANT escapes the wildcards `_` and `%` of its name, and a grant an earlier version made on the
 * name as a pattern is narrowed on the next reconciliation) and the password of the
 * credentials Secret. Depends on the schema (and the Secret) in the workflow; dropped on cleanup
 * before the schema; polled per resource like the schema. A user of that name is the resource's
 * when it holds privileges on the resource's schema (which the schema dependent made sure is the
 * resource's own); its password is compared with the Secret's on each reconciliation and set again
 * when they differ (e.g. a new Secret). A user that holds no privileges on the schema is someone
 * else's: {@link UserNotOwnedError}, and it is neither changed nor dropped.
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
    const user = await this.db.user(userName(resource), schemaName(resource));
    return user ? [user] : [];
  }

  protected desired(resource: MySQLSchema): UserState {
    return { name: userName(resource), host: this.db.settings.userHost, owned: true };
  }

  protected override async matchDesired(
    actual: UserState,
    _desired: UserState,
    resource: MySQLSchema,
    context: Context<MySQLSchema>,
  ): Promise<boolean> {
    // privileges on the schema's name as a pattern reach other schemas: narrowed by update()
    if (!actual.owned || actual.wildcard) return false;
    const password = this.password(resource, context);
    // without the Secret there is nothing to compare with; its own event reconciles again
    return password === undefined || (await this.db.passwordMatches(actual.name, password));
  }

  /** @throws CredentialsNotFoundError when the Secret is not cached yet; UserNotOwnedError when someone else made a user of that name meanwhile. */
  async create(desired: UserState, resource: MySQLSchema, context: Context<MySQLSchema>): Promise<UserState> {
    const password = this.requiredPassword(resource, context);
    try {
      await this.db.createUser(desired.name, password, schemaName(resource));
    } catch (error) {
      const existing =
        error instanceof MySQLQueryError && error.driverCode === 'ER_CANNOT_USER'
          ? await this.db.user(desired.name, schemaName(resource))
          : undefined;
      if (!existing) throw error;
      return this.update(existing, desired, resource, context);
    }
    return (await this.db.user(desired.name, schemaName(resource))) ?? desired;
  }

  /** Sets the Secret's password. @throws UserNotOwnedError when the user holds no privileges on the schema. */
  async update(
    actual: UserState,
    desired: UserState,
    resource: MySQLSchema,
    context: Context<MySQLSchema>,
  ): Promise<UserState> {
    if (!actual.owned) throw new UserNotOwnedError(`'${actual.name}'@'${actual.host}'`, schemaName(resource));
    const password = this.requiredPassword(resource, context);
    if (actual.wildcard) await this.db.narrowGrant(actual.name, schemaName(resource));
    await this.db.setPassword(actual.name, password);
    return (await this.db.user(desired.name, schemaName(resource))) ?? desired;
  }

  /**
   * Drops the user by name, whether or not the last poll saw it (cleanup must leave nothing), when
   * it is the resource's: it holds privileges on the schema, and that schema is gone, carries the
   * resource's mark, or has no mark (made by a version before the mark).
   */
  override async delete(resource: MySQLSchema, context: Context<MySQLSchema>): Promise<void> {
    await this.dropIfOwned(resource);
    await super.delete(resource, context);
  }

  protected override async deleteResource(_user: UserState, resource: MySQLSchema): Promise<void> {
    await this.dropIfOwned(resource);
  }

  private async dropIfOwned(resource: MySQLSchema): Promise<void> {
    const schema = schemaName(resource);
    const user = await this.db.user(userName(resource), schema);
    if (!user?.owned) return;
    const comment = (await this.db.schema(schema))?.comment;
    if (comment === undefined || comment === '' || comment === ownerMark(resource))
      await this.db.dropUser(user.name);
  }

  private password(resource: MySQLSchema, context: Context<MySQLSchema>): string | undefined {
    const name = secretName(resource);
    const secret = context
      .getSecondaryResources(ResourceTypes.Secret)
      .find((s) => s.metadata?.name === name && s.metadata?.namespace === resource.metadata?.namespace);
    const encoded = secret?.data?.[PASSWORD_KEY];
    return encoded ? Buffer.from(encoded, 'base64').toString('utf8') : undefined;
  }

  private requiredPassword(resource: MySQLSchema, context: Context<MySQLSchema>): string {
    const password = this.password(resource, context);
    if (password === undefined) throw new CredentialsNotFoundError(secretName(resource));
    return password;
  }
}
