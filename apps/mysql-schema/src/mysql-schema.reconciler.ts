import type { V1Secret } from '@kubernetes/client-node';
import type { Context, ErrorStatusUpdateControl, UpdateControl } from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';
import type { SchemaState, UserState } from './database/mysql-database.js';
import { SCHEMA_DEPENDENT, SchemaDependent } from './dependents/schema.dependent.js';
import { SECRET_DEPENDENT, SecretDependent } from './dependents/secret.dependent.js';
import { USER_DEPENDENT, UserDependent } from './dependents/user.dependent.js';
import { CONTROLLER_NAME } from './mysql-schema-names.js';
import { MySQLSchema } from './mysql-schema.resource.js';
import { errorStatus, patchStatus, reconciledStatus } from './mysql-schema-status.js';

/**
 * The default retry: unlimited attempts, 2 s then x1.5 up to 60 s between them, because the faults
 * of this operator (the database down, a wrong password) end when someone fixes them, not after a
 * number of attempts. Override with `TOSDK_CONTROLLER_MYSQLSCHEMA_RETRY_*`.
 */
export const MYSQL_SCHEMA_RETRY = Object.freeze({
  maxAttempts: -1,
  initialInterval: 2_000,
  intervalMultiplier: 1.5,
  maxInterval: 60_000,
});

/**
 * A dependent that is a Nest provider with constructor injection (the OperatorModule replaces the
 * class by its instance). The workflow's type only admits classes without constructor arguments;
 * this typed view of a provider class satisfies it without a cast.
 */
function provider<T>(type: new (...args: never[]) => T): new () => T {
  return type;
}

/**
 * The MySQLSchema controller (JOSDK's `MySQLSchemaReconciler`): a managed workflow of the
 * credentials Secret, the schema and the user (which depends on both); the workflow's dependents
 * that are dropped by the operator (schema, user) give each resource a finalizer, and cleanup drops
 * the user and then the schema. `reconcile` only reports what exists.
 */
@Reconciler({
  resource: MySQLSchema,
  name: CONTROLLER_NAME,
  retry: MYSQL_SCHEMA_RETRY,
  workflow: {
    dependents: [
      { dependent: provider(SecretDependent) },
      { dependent: provider(SchemaDependent) },
      { dependent: provider(UserDependent), dependsOn: [SCHEMA_DEPENDENT, SECRET_DEPENDENT] },
    ],
  },
})
export class MySQLSchemaReconciler implements Reconciler<MySQLSchema> {
  reconcile(resource: MySQLSchema, context: Context<MySQLSchema>): UpdateControl<MySQLSchema> {
    const workflow = context.managedWorkflowAndDependentResourceContext();
    return patchStatus(
      resource,
      reconciledStatus(resource, {
        secret: workflow.getSecondaryResource<V1Secret>(SECRET_DEPENDENT),
        schema: workflow.getSecondaryResource<SchemaState>(SCHEMA_DEPENDENT),
        user: workflow.getSecondaryResource<UserState>(USER_DEPENDENT),
      }),
    );
  }

  updateErrorStatus(
    resource: MySQLSchema,
    _context: Context<MySQLSchema>,
    error: unknown,
  ): ErrorStatusUpdateControl<MySQLSchema> {
    return errorStatus(resource, error);
  }
}
