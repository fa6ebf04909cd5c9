/** Injection token of the resolved {@link MySQLSchemaOptions}. */
export const MYSQL_SCHEMA_OPTIONS = Symbol('MYSQL_SCHEMA_OPTIONS');

/** What the dependents need besides the database. */
export interface MySQLSchemaOptions {
  /** How often each resource's schema and user are read from the database. */
  readonly pollPeriodMs: number;
}
