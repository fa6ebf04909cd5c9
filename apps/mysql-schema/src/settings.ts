import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidMySQLSettingError } from './database/mysql-errors.js';
import { mysqlSettingsFromEnvironment } from './database/mysql-settings.js';
import type { MySQLSettings } from './database/mysql-settings.js';

/** The in-cluster service account token, whose presence (with `KUBERNETES_SERVICE_HOST`) means "running in a pod". */
export const SERVICE_ACCOUNT_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** What `main` runs with, read from the environment by {@link settingsFromEnvironment}. */
export interface MySQLSchemaSettings {
  /** The database (`MYSQL_*`). Required: `MYSQL_HOST` must be set. */
  readonly mysql: MySQLSettings;
  /** `MYSQL_SCHEMA_POLL_PERIOD_MS`: how often each resource's schema and user are read. Defaults to 30,000. */
  readonly pollPeriodMs: number;
  /** `MYSQL_SCHEMA_HTTP_HOST`: where health and metrics listen. Defaults to `127.0.0.1` (the Deployment sets `0.0.0.0`). */
  readonly httpHost: string;
  /** `MYSQL_SCHEMA_HTTP_PORT`: 0 picks a free port. Defaults to 8080. */
  readonly httpPort: number;
  /** `MYSQL_SCHEMA_DEV_DIR`: where dev mode writes its kubeconfig. Defaults to `.tosdk` in the working directory. */
  readonly devDir: string;
  /**
   * Whether a cluster is configured: `KUBECONFIG` is set, or the process runs in a pod. Otherwise
   * dev mode starts an embedded API server.
   */
  readonly clusterConfigured: boolean;
}

function integer(
  env: Record<string, string | undefined>,
  variable: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max)
    throw new InvalidMySQLSettingError(variable, `expected an integer ${min}..${max}, got "${raw}"`);
  return value;
}

/**
 * Reads the settings.
 * @throws MySQLNotConfiguredError when `MYSQL_HOST` is unset; InvalidMySQLSettingError naming a variable with a bad value.
 */
export function settingsFromEnvironment(
  env: Record<string, string | undefined> = process.env,
  fileExists: (path: string) => boolean = existsSync,
): MySQLSchemaSettings {
  return {
    mysql: mysqlSettingsFromEnvironment(env),
    pollPeriodMs: integer(env, 'MYSQL_SCHEMA_POLL_PERIOD_MS', 30_000, 100, 86_400_000),
    httpHost: env['MYSQL_SCHEMA_HTTP_HOST']?.trim() || '127.0.0.1',
    httpPort: integer(env, 'MYSQL_SCHEMA_HTTP_PORT', 8080, 0, 65535),
    devDir: env['MYSQL_SCHEMA_DEV_DIR']?.trim() || join(process.cwd(), '.tosdk'),
    clusterConfigured:
      Boolean(env['KUBECONFIG']?.trim()) ||
      (Boolean(env['KUBERNETES_SERVICE_HOST']) && fileExists(SERVICE_ACCOUNT_TOKEN_PATH)),
  };
}
