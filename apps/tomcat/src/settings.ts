import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The in-cluster service account token, whose presence (with `KUBERNETES_SERVICE_HOST`) means "running in a pod". */
export const SERVICE_ACCOUNT_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** What `main` runs with, read from the environment by {@link settingsFromEnvironment}. */
export interface TomcatSettings {
  /** `TOMCAT_HTTP_HOST`: where health and metrics listen. Defaults to `127.0.0.1` (the Deployment sets `0.0.0.0`). */
  readonly httpHost: string;
  /** `TOMCAT_HTTP_PORT`: 0 picks a free port. Defaults to 8080. */
  readonly httpPort: number;
  /** `TOMCAT_DEV_DIR`: where dev mode writes its kubeconfig. Defaults to `.tosdk` in the working directory. */
  readonly devDir: string;
  /** Whether a cluster is configured: `KUBECONFIG` is set, or the process runs in a pod. Otherwise dev mode. */
  readonly clusterConfigured: boolean;
}

/** Thrown when a `TOMCAT_*` variable has a value that cannot be used. */
export class InvalidTomcatSettingError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidTomcatSetting';
  constructor(
    /** The variable. */
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'InvalidTomcatSettingError';
  }
}

/**
 * Reads the settings.
 * @throws InvalidTomcatSettingError naming a variable with a bad value.
 */
export function settingsFromEnvironment(
  env: Record<string, string | undefined> = process.env,
  fileExists: (path: string) => boolean = existsSync,
): TomcatSettings {
  const rawPort = env['TOMCAT_HTTP_PORT']?.trim();
  if (rawPort && (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535))
    throw new InvalidTomcatSettingError('TOMCAT_HTTP_PORT', `expected a port 0..65535, got "${rawPort}"`);
  return {
    httpHost: env['TOMCAT_HTTP_HOST']?.trim() || '127.0.0.1',
    httpPort: rawPort ? Number(rawPort) : 8080,
    devDir: env['TOMCAT_DEV_DIR']?.trim() || join(process.cwd(), '.tosdk'),
    clusterConfigured:
      Boolean(env['KUBECONFIG']?.trim()) ||
      (Boolean(env['KUBERNETES_SERVICE_HOST']) && fileExists(SERVICE_ACCOUNT_TOKEN_PATH)),
  };
}
