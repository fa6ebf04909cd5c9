import { InvalidMySQLSettingError, MySQLNotConfiguredError } from './mysql-errors.js';

/** Where the operator's database is and which account it uses (read by {@link mysqlSettingsFromEnvironment}). */
export interface MySQLSettings {
  /** `MYSQL_HOST`. Required: without it no database is configured. */
  readonly host: string;
  /** `MYSQL_PORT`. Defaults to 3306. */
  readonly port: number;
  /** `MYSQL_USER`: an account allowed to create and drop databases and users (with grant option). Defaults to `root`. */
  readonly user: string;
  /** `MYSQL_PASSWORD`. Defaults to empty. */
  readonly password: string;
  /** `MYSQL_POOL_SIZE`: connections in the pool. Defaults to 5. */
  readonly poolSize: number;
  /** `MYSQL_CONNECT_TIMEOUT_MS`. Defaults to 5,000. */
  readonly connectTimeoutMs: number;
  /** `MYSQL_USER_HOST`: the host part of the users the operator creates (`'user'@'<this>'`). Defaults to `%` (any host). */
  readonly userHost: string;
}

/**
 * `<host>:<port>`, an IPv6 host in brackets (`[fd00::5]:3306`), so the port can be split off (as
 * Go's `net.JoinHostPort` writes it).
 */
export function hostPort(settings: Pick<MySQLSettings, 'host' | 'port'>): string {
  const host =
    settings.host.includes(':') && !settings.host.startsWith('[') ? `[${settings.host}]` : settings.host;
  return `${host}:${settings.port}`;
}

/** `mysql://<user>@<host>:<port>`: how messages name the connection (never with the password). */
export function describeConnection(settings: Pick<MySQLSettings, 'host' | 'port' | 'user'>): string {
  return `mysql://${settings.user}@${hostPort(settings)}`;
}

function positiveInteger(
  env: Record<string, string | undefined>,
  variable: string,
  fallback: number,
  max: number,
): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > max)
    throw new InvalidMySQLSettingError(variable, `expected an integer 1..${max}, got "${raw}"`);
  return value;
}

/**
 * The database settings from `MYSQL_*` variables.
 * @throws MySQLNotConfiguredError when `MYSQL_HOST` is unset; InvalidMySQLSettingError naming a bad variable.
 */
export function mysqlSettingsFromEnvironment(
  env: Record<string, string | undefined> = process.env,
): MySQLSettings {
  const host = env['MYSQL_HOST']?.trim();
  if (!host) throw new MySQLNotConfiguredError();
  return {
    host,
    port: positiveInteger(env, 'MYSQL_PORT', 3306, 65535),
    user: env['MYSQL_USER']?.trim() || 'root',
    password: env['MYSQL_PASSWORD'] ?? '',
    poolSize: positiveInteger(env, 'MYSQL_POOL_SIZE', 5, 100),
    connectTimeoutMs: positiveInteger(env, 'MYSQL_CONNECT_TIMEOUT_MS', 5_000, 600_000),
    userHost: env['MYSQL_USER_HOST']?.trim() || '%',
  };
}
