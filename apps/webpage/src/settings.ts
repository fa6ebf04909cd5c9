import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { flavourFromEnvironment } from './webpage-flavour.js';
import type { WebPageFlavour } from './webpage-flavour.js';

/** The in-cluster service account token, whose presence (with `KUBERNETES_SERVICE_HOST`) means "running in a pod". */
export const SERVICE_ACCOUNT_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** What `main` runs with, read from the environment by {@link settingsFromEnvironment}. */
export interface WebPageSettings {
  /** `WEBPAGE_FLAVOUR`. Defaults to `managed`. */
  readonly flavour: WebPageFlavour;
  /** `WEBPAGE_HTTP_HOST`: where health and metrics listen. Defaults to `127.0.0.1` (the Deployment sets `0.0.0.0`). */
  readonly httpHost: string;
  /** `WEBPAGE_HTTP_PORT`: 0 picks a free port. Defaults to 8080. */
  readonly httpPort: number;
  /** `WEBPAGE_LEADER_ELECTION` (`true`/`false`): run for the lease {@link leaseName}. Defaults to false. */
  readonly leaderElection: boolean;
  /** `WEBPAGE_LEASE_NAME`. Defaults to `webpage-operator`. */
  readonly leaseName: string;
  /** `WEBPAGE_DEV_DIR`: where dev mode writes its kubeconfig. Defaults to `.tosdk` in the working directory. */
  readonly devDir: string;
  /** `WEBPAGE_DEV_APISERVER_PORT`: port of the embedded API server in dev mode. Defaults to 0 (a free port). */
  readonly devApiServerPort: number;
  /**
   * Whether a cluster is configured: `KUBECONFIG` is set, or the process runs in a pod
   * (`KUBERNETES_SERVICE_HOST` and a service account token). Otherwise dev mode starts an embedded
   * API server. `~/.kube/config` alone does not count, so `npm start` never touches a cluster by
   * accident: set `KUBECONFIG=~/.kube/config` to use it.
   */
  readonly clusterConfigured: boolean;
}

/** Thrown when a `WEBPAGE_*` variable has a value that cannot be used. */
export class InvalidSettingError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidWebPageSetting';
  constructor(
    /** The variable. */
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'InvalidSettingError';
  }
}

function port(env: Record<string, string | undefined>, variable: string, fallback: number): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535)
    throw new InvalidSettingError(variable, `expected a port 0..65535, got "${raw}"`);
  return value;
}

function flag(env: Record<string, string | undefined>, variable: string): boolean {
  const raw = env[variable]?.trim().toLowerCase();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new InvalidSettingError(variable, `expected true or false, got "${env[variable]}"`);
}

/**
 * Reads the settings.
 * @throws InvalidSettingError or InvalidFlavourError naming the variable with a bad value.
 */
export function settingsFromEnvironment(
  env: Record<string, string | undefined> = process.env,
  fileExists: (path: string) => boolean = existsSync,
): WebPageSettings {
  const leaseName = env['WEBPAGE_LEASE_NAME']?.trim() || 'webpage-operator';
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(leaseName)) {
    throw new InvalidSettingError('WEBPAGE_LEASE_NAME', `"${leaseName}" is not a valid object name`);
  }
  return {
    flavour: flavourFromEnvironment(env),
    httpHost: env['WEBPAGE_HTTP_HOST']?.trim() || '127.0.0.1',
    httpPort: port(env, 'WEBPAGE_HTTP_PORT', 8080),
    leaderElection: flag(env, 'WEBPAGE_LEADER_ELECTION'),
    leaseName,
    devDir: env['WEBPAGE_DEV_DIR']?.trim() || join(process.cwd(), '.tosdk'),
    devApiServerPort: port(env, 'WEBPAGE_DEV_APISERVER_PORT', 0),
    clusterConfigured:
      Boolean(env['KUBECONFIG']?.trim()) ||
      (Boolean(env['KUBERNETES_SERVICE_HOST']) && fileExists(SERVICE_ACCOUNT_TOKEN_PATH)),
  };
}
