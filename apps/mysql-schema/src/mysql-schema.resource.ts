import { fileURLToPath } from 'node:url';
import { defineResource } from '@tosdk/core';
import type { CustomResource } from '@tosdk/core';

/** What a user asks for: a schema with a default character set. */
export interface MySQLSchemaSpec {
  /** The schema's default character set (`utf8mb4`, `latin1`, ...). Required. */
  encoding: string;
}

/** What the operator reports, read from what exists in the database and the cluster. */
export interface MySQLSchemaStatus {
  /** The schema's name in the database, once it exists. */
  schemaName?: string;
  /** The user allowed on the schema, once it exists. */
  userName?: string;
  /** The Secret holding the user's credentials, once it exists. */
  secretName?: string;
  /** The `metadata.generation` this status describes. */
  observedGeneration?: number;
  /** Whether schema, user and Secret all exist. */
  ready?: boolean;
  /** Why the last reconciliation failed; absent after a success. */
  errorMessage?: string;
}

/** A `MySQLSchema` object (`mysql.sample.tosdk.io/v1`). */
export type MySQLSchema = CustomResource<MySQLSchemaSpec, MySQLSchemaStatus>;

/** The `MySQLSchema` kind: group `mysql.sample.tosdk.io`, version `v1`, namespaced, plural `mysqlschemas`. */
export const MySQLSchema = defineResource<MySQLSchema>({
  group: 'mysql.sample.tosdk.io',
  version: 'v1',
  kind: 'MySQLSchema',
});

/** The CRD manifest of {@link MySQLSchema} (the file `kubectl apply -f apps/mysql-schema/deploy/` applies). */
export const MYSQL_SCHEMA_CRD_PATH = fileURLToPath(
  new URL('../deploy/mysqlschema-crd.yaml', import.meta.url),
);
